/**
 * The catalog pages (issue 19, "catalog"): compositions, skills, personas and workflows with
 * their versions and labels, and context cards. Each page calls the catalog operations as the
 * signed-in account; another account's id answers the operations' 404.
 */
import type { PageRegistrar } from '../../console-pages.js';
import { registerContextCardPages } from './context-cards.js';
import { digestsOf } from './edit-base.js';
import { blankState, CompositionPreview, editorTexts, fetchItem, renderEditor, renderList, saveFromForm } from './editor.js';
import { deleteItem, removeLabel, renderDeleteConfirmation, renderHistory, renderVersion, rollBack, setLabel } from './history.js';
import { CATALOG_KINDS, editorStateFromForm, editorStateOf, param } from './kinds.js';
import { formBody } from '../../console-pages.js';

export function registerCatalogPages(pages: PageRegistrar): void {
  for (const kind of CATALOG_KINDS) {
    pages.page('GET', kind.path, (ctx) => renderList(kind, ctx));
    pages.page('GET', `${kind.path}/new`, async (ctx) => renderEditor(ctx, { kind, state: blankState(kind) }));
    pages.page('POST', `${kind.path}/new`, (ctx) => saveFromForm(kind, ctx, undefined));
    if (kind.special === 'composition') {
      // The live preview (htmx): the preview panel for what the form holds now.
      pages.page('POST', `${kind.path}/preview`, async (ctx) => ctx.fragment(<CompositionPreview state={editorStateFromForm(kind, formBody(ctx.req))} />));
    }
    pages.page('GET', `${kind.path}/:id`, async (ctx) => {
      const item = await fetchItem(kind, ctx, param(ctx, 'id'));
      const state = editorStateOf(kind, item);
      await renderEditor(ctx, {
        kind,
        item,
        state,
        base: digestsOf(editorTexts(kind, state)),
        notice: ctx.req.query.created ? `Created as version ${item.version}.` : undefined,
      });
    });
    pages.page('POST', `${kind.path}/:id`, (ctx) => saveFromForm(kind, ctx, param(ctx, 'id')));
    pages.page('GET', `${kind.path}/:id/versions`, (ctx) => renderHistory(kind, ctx, param(ctx, 'id')));
    pages.page('GET', `${kind.path}/:id/versions/:version`, (ctx) => renderVersion(kind, ctx, param(ctx, 'id'), param(ctx, 'version')));
    pages.page('POST', `${kind.path}/:id/labels`, (ctx) => setLabel(kind, ctx, param(ctx, 'id')));
    pages.page('POST', `${kind.path}/:id/labels/:label/remove`, (ctx) => removeLabel(kind, ctx, param(ctx, 'id'), param(ctx, 'label')));
    pages.page('POST', `${kind.path}/:id/rollback`, (ctx) => rollBack(kind, ctx, param(ctx, 'id')));
    pages.page('GET', `${kind.path}/:id/delete`, (ctx) => renderDeleteConfirmation(kind, ctx, param(ctx, 'id')));
    pages.page('POST', `${kind.path}/:id/delete`, (ctx) => deleteItem(kind, ctx, param(ctx, 'id')));
  }
  registerContextCardPages(pages);
}
