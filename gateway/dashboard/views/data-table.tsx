// The dashboard's lists. A table on a wide screen; at phone widths each row becomes a
// card whose cells carry their column's name (DASHBOARD_CSS, `table.list`), so no
// column is squeezed to a letter and nothing scrolls sideways. The column names are
// written once, in `head`, for both.
import { cloneElement, toChildArray, type ComponentChildren, type VNode } from "preact";

/** A column's name; `hidden` ones are read out by screen readers but not shown (an actions column). */
export type Column = string | { name: string; hidden: true };

export function DataTable({ head, children }: { head: readonly Column[]; children: ComponentChildren }) {
  const names = head.map((column) => (typeof column === "string" ? column : ""));
  return (
    <div class="table-wrap">
      <table class="list">
        <thead>
          <tr>
            {head.map((column) => (typeof column === "string" ? <th scope="col">{column}</th> : <th scope="col"><span class="visually-hidden">{column.name}</span></th>))}
          </tr>
        </thead>
        <tbody>{toChildArray(children).map((row) => labelled(row, names))}</tbody>
      </table>
    </div>
  );
}

type Cell = VNode<{ colSpan?: number; class?: string; "data-label"?: string; children?: ComponentChildren }>;

/**
 * Names each cell of a row after its column, and wraps its content so that on a phone
 * the name and the value sit side by side however many lines either takes. A row with
 * a cell spanning columns is a summary line (a total): its cells stay unnamed.
 */
function labelled(row: ReturnType<typeof toChildArray>[number], names: string[]) {
  if (typeof row !== "object" || row.type !== "tr") return row;
  const cells = toChildArray((row as Cell).props.children);
  const summary = cells.some((cell) => typeof cell === "object" && Number((cell as Cell).props.colSpan ?? 1) > 1);
  let column = 0;
  const named = cells.map((child) => {
    if (typeof child !== "object") return child;
    const cell = child as Cell;
    const name = summary ? "" : (cell.props["data-label"] ?? names[column] ?? "");
    column += Number(cell.props.colSpan ?? 1);
    return cloneElement(cell, { "data-label": name }, <div class="value">{cell.props.children}</div>);
  });
  const rowClass = (row as Cell).props.class;
  return cloneElement(row, summary ? { class: rowClass ? `${rowClass} sum` : "sum" } : {}, ...named);
}
