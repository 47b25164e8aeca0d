// Porch console: the few behaviours server-rendered pages cannot have on their own.
// Everything works without this script; it only adds conveniences.

/**
 * A page answering a form's POST names the address it is read at (data-address). Replacing the
 * history entry with it (even at the same address, which drops the entry's form data) makes a
 * reload read the page again instead of sending the form again.
 */
const address = document.body.dataset.address;
if (address) {
  history.replaceState(history.state, '', address);
  // A refused form: focus goes to why, which a screen reader then reads (WCAG 3.3.1).
  document.querySelector('main .notice-error')?.focus();
}

/** The navigation is a sidebar on wide screens (always open) and a menu to open on phones. */
const wide = window.matchMedia('(min-width: 761px)');
const syncMenu = () => {
  for (const menu of document.querySelectorAll('details.nav-menu')) menu.open = wide.matches;
};
syncMenu();
wide.addEventListener('change', syncMenu);

/** On a phone, Escape closes the open menu and leaves focus on its toggle. */
document.addEventListener('keydown', (event) => {
  if (event.key !== 'Escape' || wide.matches) return;
  for (const menu of document.querySelectorAll('details.nav-menu[open]')) {
    menu.open = false;
    menu.querySelector('summary')?.focus();
  }
});

/** Copy buttons: <button data-copy="#element-id"> copies that element's text. */
document.addEventListener('click', async (event) => {
  const button = event.target instanceof Element ? event.target.closest('[data-copy]') : null;
  if (!button) return;
  const target = document.querySelector(button.getAttribute('data-copy') ?? '');
  if (!target) return;
  const label = button.textContent;
  try {
    await navigator.clipboard.writeText(target.textContent ?? '');
    button.textContent = 'Copied';
  } catch {
    button.textContent = 'Select and copy';
  }
  setTimeout(() => {
    button.textContent = label;
  }, 1500);
});

/** Confirmation before destructive actions: <button data-confirm="Revoke this key?">. */
document.addEventListener('submit', (event) => {
  const submitter = event.submitter;
  const message = submitter?.getAttribute('data-confirm') ?? (event.target instanceof Element ? event.target.getAttribute('data-confirm') : null);
  if (message && !window.confirm(message)) event.preventDefault();
});

/**
 * A part of the page that updates in place (a live preview, a scan) stops when the session has
 * ended in another tab: htmx swaps nothing for an error, so say why where the update would go.
 */
document.addEventListener('htmx:responseError', (event) => {
  const { xhr, target } = event.detail;
  if (!(target instanceof Element)) return;
  // Whatever the error, the part must not keep showing an answer to what is no longer there
  // (regression: a live test of a text over the form limit kept the previous text's findings).
  const notice = document.createElement('p');
  notice.className = 'notice notice-error';
  notice.setAttribute('role', 'alert');
  notice.textContent =
    xhr.status === 401
      ? 'Your session has ended, so this part stopped updating. Sign in again in another tab; what you typed here stays.'
      : xhr.status === 413
        ? 'This is too large to update here (the console takes forms of up to 1 MB).'
        : 'This part could not update: reload the page.';
  target.replaceChildren(notice);
});
