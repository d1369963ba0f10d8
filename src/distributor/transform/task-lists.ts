import type MarkdownIt from 'markdown-it';
import type { StateCore } from 'markdown-it';

type Markdown = InstanceType<typeof MarkdownIt>;
type Token = StateCore['tokens'][number];

/** `[ ]`, `[x]` or `[X]` and the blank after it, at the start of a list item's text. */
const BOX = /^\[([ xX])\](?=[ \t])/;

/**
 * Task lists as GitHub renders them (docs/distributor.md#pages): a list
 * item whose text begins with `[ ] ` or `[x] ` shows a ticked or empty
 * checkbox instead of the brackets, which readers took for a rendering
 * fault. The checkbox is `disabled`: a published page records the state the
 * author wrote, and nothing on the page could save a click (the policy
 * allows no script). The classes are github-markdown-css's, which hide the
 * bullet and place the box.
 */
export function taskLists(md: Markdown): void {
  // After `text_join`: `[ ]` is then one text token with the words after it.
  md.core.ruler.push('task_lists', (state) => {
    markTaskItems(state.tokens, state.Token);
  });
  md.renderer.rules.task_checkbox = (tokens, index, options) =>
    `<input type="checkbox" class="task-list-item-checkbox" disabled=""${tokens[index]?.meta?.checked === true ? ' checked=""' : ''}${options.xhtmlOut ? ' />' : '>'}`;
}

function markTaskItems(tokens: Token[], TokenClass: StateCore['Token']): void {
  tokens.forEach((token, index) => {
    if (token.type !== 'inline' || index < 2) return;
    const paragraph = tokens[index - 1];
    const item = tokens[index - 2];
    if (paragraph?.type !== 'paragraph_open' || item?.type !== 'list_item_open') return;
    const first = token.children?.[0];
    if (first?.type !== 'text') return;
    const box = BOX.exec(first.content);
    if (box === null) return;
    first.content = first.content.slice(box[0].length);
    const checkbox = new TokenClass('task_checkbox', '', 0);
    checkbox.meta = { checked: box[1] !== ' ' };
    token.children?.unshift(checkbox);
    item.attrJoin('class', 'task-list-item');
    const list = enclosingList(tokens, index - 2);
    if (
      list !== undefined &&
      !String(list.attrGet('class') ?? '')
        .split(' ')
        .includes('contains-task-list')
    )
      list.attrJoin('class', 'contains-task-list');
  });
}

/** The list that the item at `itemIndex` belongs to: the nearest list opening one level up. */
function enclosingList(tokens: readonly Token[], itemIndex: number): Token | undefined {
  const level = (tokens[itemIndex]?.level ?? 0) - 1;
  for (let index = itemIndex - 1; index >= 0; index -= 1) {
    const token = tokens[index];
    if (token === undefined) continue;
    if (token.level === level && (token.type === 'bullet_list_open' || token.type === 'ordered_list_open'))
      return token;
  }
  return undefined;
}
