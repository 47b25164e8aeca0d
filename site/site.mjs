/**
 * The docs site's script (served fingerprinted; the pages work without it): copy buttons on code
 * blocks, the sidebar folded on narrow screens, and search over every page with MiniSearch, whose
 * module and index load on first use only.
 */

const NARROW_SCREEN = '(max-width: 60rem)';
/** How many results the search list shows. */
const MAX_RESULTS = 12;
/** Characters of context either side of the first match in a result's snippet. */
const SNIPPET_CONTEXT = 70;

/** Folds the sidebar on narrow screens; on wide ones, scrolls it (not the page) to show the current page's link. */
function placeSidebar() {
  const sidebar = document.querySelector('details.sidebar');
  if (!sidebar) return;
  if (window.matchMedia(NARROW_SCREEN).matches) {
    sidebar.open = false;
    return;
  }
  const current = sidebar.querySelector('a[aria-current="page"]');
  if (current && current.offsetTop + current.offsetHeight > sidebar.clientHeight) sidebar.scrollTop = current.offsetTop - sidebar.clientHeight / 2;
}

/** Clipboard API where the page is a secure context, a selection and execCommand elsewhere (plain http on a LAN). */
async function copyText(text) {
  if (navigator.clipboard && window.isSecureContext) {
    await navigator.clipboard.writeText(text);
    return;
  }
  const area = document.createElement('textarea');
  area.value = text;
  area.setAttribute('readonly', '');
  area.style.position = 'fixed';
  area.style.opacity = '0';
  document.body.append(area);
  area.select();
  const copied = document.execCommand('copy');
  area.remove();
  if (!copied) throw new Error('copy refused');
}

function addCopyButtons() {
  for (const pre of document.querySelectorAll('main.prose pre')) {
    const code = pre.querySelector('code') ?? pre;
    const wrapper = document.createElement('div');
    wrapper.className = 'code-block';
    pre.replaceWith(wrapper);
    wrapper.append(pre);
    const button = document.createElement('button');
    button.type = 'button';
    button.className = 'copy';
    button.textContent = 'Copy';
    button.setAttribute('aria-label', 'Copy code to the clipboard');
    button.addEventListener('click', async () => {
      try {
        await copyText(code.textContent ?? '');
        button.textContent = 'Copied';
      } catch {
        button.textContent = 'Press Ctrl+C';
      }
      setTimeout(() => {
        button.textContent = 'Copy';
      }, 2000);
    });
    wrapper.append(button);
  }
}

function escapeHtml(text) {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

function escapeRegExp(text) {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** The text around the first term found, with the terms marked. */
function snippetOf(text, terms) {
  const lower = text.toLowerCase();
  let at = -1;
  for (const term of terms) {
    const index = lower.indexOf(term.toLowerCase());
    if (index >= 0 && (at < 0 || index < at)) at = index;
  }
  // Cut at spaces, so the snippet neither starts nor ends inside a word.
  let start = Math.max(0, at - SNIPPET_CONTEXT);
  if (start > 0) start = text.indexOf(' ', start) + 1 || start;
  let end = Math.min(text.length, Math.max(at, 0) + SNIPPET_CONTEXT * 2);
  if (end < text.length) end = text.lastIndexOf(' ', end) > start ? text.lastIndexOf(' ', end) : end;
  const excerpt = `${start > 0 ? '…' : ''}${text.slice(start, end)}${end < text.length ? '…' : ''}`;
  const escaped = escapeHtml(excerpt);
  if (terms.length === 0) return escaped;
  const pattern = new RegExp(`(${terms.map((term) => escapeRegExp(escapeHtml(term))).join('|')})`, 'gi');
  return escaped.replace(pattern, '<mark>$1</mark>');
}

/**
 * The search box's words: letters, digits and underscores, as the index's terms are cut
 * (SEARCH_WORD in site-pages.ts). An identifier such as `porch_version` counts whole and by its
 * parts, so searching for it finds the pages that name it, and "version" still finds them too.
 */
export function searchTokens(text) {
  const tokens = [];
  for (const [word] of text.matchAll(/[\p{L}\p{N}_]+/gu)) {
    tokens.push(word);
    if (word.includes('_')) tokens.push(...word.split('_').filter((part) => part !== ''));
  }
  return tokens;
}

/** The MiniSearch options of the search box (test/discovery/search.test.ts searches with them). */
export const SEARCH_OPTIONS = {
  fields: ['heading', 'page', 'keywords', 'text', 'terms'],
  storeFields: ['url', 'heading', 'page', 'text'],
  tokenize: searchTokens,
  searchOptions: { boost: { heading: 3, keywords: 3, page: 2 }, prefix: true, fuzzy: 0.2, combineWith: 'AND' },
};

function setUpSearch() {
  const form = document.querySelector('form.search');
  if (!form) return;
  const input = form.querySelector('input');
  const panel = form.querySelector('.search-results');
  const status = document.getElementById('search-status');
  if (!input || !panel || !status) return;
  form.hidden = false;

  let loading;
  /** Loads MiniSearch and the index once, on the first focus or keystroke. */
  const load = () => {
    loading ??= Promise.all([import(form.dataset.engine), fetch(form.dataset.index).then((response) => response.json())]).then(([module, sections]) => {
      const MiniSearch = module.default;
      const search = new MiniSearch(SEARCH_OPTIONS);
      search.addAll(sections);
      return search;
    });
    return loading;
  };

  const close = () => {
    panel.hidden = true;
  };
  const links = () => [...panel.querySelectorAll('a')];

  const render = async () => {
    const query = input.value.trim();
    if (query.length === 0) {
      close();
      status.textContent = '';
      return;
    }
    let results;
    try {
      results = (await load()).search(query).slice(0, MAX_RESULTS);
    } catch {
      status.textContent = 'Search could not load.';
      return;
    }
    if (input.value.trim() !== query) return;
    const terms = query.split(/\s+/).filter((term) => term.length > 1);
    panel.innerHTML =
      results.length === 0
        ? '<p class="empty">No page matches.</p>'
        : `<ul>${results
            .map(
              (result) =>
                `<li><a href="${escapeHtml(result.url)}"><span class="result-heading">${escapeHtml(result.heading)}</span><span class="result-page">${escapeHtml(result.page)}</span><span class="result-snippet">${snippetOf(result.text, terms)}</span></a></li>`,
            )
            .join('')}</ul>`;
    panel.hidden = false;
    status.textContent = results.length === 0 ? 'No results.' : `${results.length} result${results.length === 1 ? '' : 's'}.`;
  };

  input.addEventListener('focus', () => {
    load().catch(() => {});
  });
  input.addEventListener('input', () => {
    render();
  });
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const first = links()[0];
    if (first) window.location.assign(first.href);
  });
  form.addEventListener('keydown', (event) => {
    const list = links();
    const index = list.indexOf(document.activeElement);
    if (event.key === 'ArrowDown' && list.length > 0) {
      event.preventDefault();
      list[Math.min(index + 1, list.length - 1)]?.focus();
    } else if (event.key === 'ArrowUp' && index >= 0) {
      event.preventDefault();
      if (index === 0) input.focus();
      else list[index - 1]?.focus();
    } else if (event.key === 'Escape') {
      close();
      input.focus();
    }
  });
  document.addEventListener('click', (event) => {
    if (!form.contains(event.target)) close();
  });
  // "/" jumps to the search box, as on most docs sites.
  document.addEventListener('keydown', (event) => {
    const target = event.target;
    const typing = target instanceof HTMLElement && (target.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(target.tagName));
    if (event.key === '/' && !typing && !event.ctrlKey && !event.metaKey && !event.altKey) {
      event.preventDefault();
      input.focus();
    }
  });
}

// Imported outside a browser (a test reading SEARCH_OPTIONS), there is no page to set up.
if (typeof document !== 'undefined') {
  placeSidebar();
  addCopyButtons();
  setUpSearch();
}
