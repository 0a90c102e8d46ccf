import * as v from 'valibot';
import { ManifestItem, type ManifestItemInput } from '../submission';

/**
 * The shape of one partner's Excel layout: which human-readable column header fills which item
 * field of spec 2.5, and how the cell is read. Layouts are data files (layouts/<slug>.json, checked
 * against this shape when loaded); convert.ts is the only code that reads them.
 */

/** A canonical item field of spec 2.5 (`awbNumber`, `consigneeName`, `Category`, ...). */
export type ItemField = keyof ManifestItemInput;

/**
 * How a cell becomes a field value. A blank cell (empty or only spaces) always leaves the field out.
 * - `text`: text as written; a number cell becomes its digits (1425 -> "1425").
 * - `upper`: text, upper-cased (document types: "cuit" -> "CUIT").
 * - `digits`: a tax id; spaces, dots, hyphens and slashes removed ("20-12345678-9" -> "20123456789").
 * - `country`: text, trimmed and upper-cased ("cn" -> "CN").
 * - `number`: a number cell as is; text read with a comma or a dot as decimal mark ("12,50",
 *   "1.234,5", "US$ 12.50"). Text that is no number is passed on, and validation names it.
 * - `grams`: a `number` in grams, converted to kilograms (1250 -> 1.25).
 */
export type Conversion = 'text' | 'upper' | 'digits' | 'country' | 'number' | 'grams';

export interface LayoutColumn {
  /** Accepted header texts; compared ignoring case, accents, punctuation and spacing. */
  readonly headers: readonly string[];
  /** The item field the cell fills. */
  readonly field?: ItemField;
  /** A name for the cell as an input of `combine` (a column may fill a field and be a part). */
  readonly part?: string;
  /** Default: `number` for amounts and weights, `digits` for consigneeIdNumber, `country` for originCountry, else `text`. */
  readonly as?: Conversion;
}

/**
 * A field made of several cells. `multiply`: the product of numeric parts (unit value x quantity;
 * a blank quantity counts as 1). `join`: the non-blank text parts joined by a space (first name +
 * last name).
 */
export interface Combination {
  readonly field: ItemField;
  readonly op: 'multiply' | 'join';
  readonly parts: readonly string[];
}

export interface ExcelLayout {
  /** The `{courier}` path value that selects this layout. */
  readonly slug: string;
  /** The partner, as named in messages. */
  readonly partner: string;
  /**
   * How many of the sheet's first non-blank rows may hold the header (default 1). Partners that
   * put a title or a date above the header need more.
   */
  readonly headerSearchRows?: number;
  readonly columns: readonly LayoutColumn[];
  readonly combine?: readonly Combination[];
  /**
   * Columns the header must have: each entry is a group of field or part names, and one column
   * of each group is enough (e.g. the air waybill or the tracking number).
   */
  readonly required: readonly (readonly string[])[];
}

const itemFields = Object.keys(ManifestItem.pipe[0].entries) as ItemField[];
const names = v.array(v.pipe(v.string(), v.nonEmpty()));

/** The data-file form of a layout; `about` says in words what the partner's file looks like. */
const LayoutFile = v.strictObject({
  slug: v.pipe(v.string(), v.nonEmpty()),
  partner: v.pipe(v.string(), v.nonEmpty()),
  about: v.string(),
  headerSearchRows: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1))),
  columns: v.array(
    v.strictObject({
      headers: v.pipe(names, v.minLength(1)),
      field: v.optional(v.picklist(itemFields)),
      part: v.optional(v.string()),
      as: v.optional(v.picklist(['text', 'upper', 'digits', 'country', 'number', 'grams'] as const satisfies readonly Conversion[])),
    }),
  ),
  combine: v.optional(v.array(v.strictObject({ field: v.picklist(itemFields), op: v.picklist(['multiply', 'join']), parts: v.pipe(names, v.minLength(2)) }))),
  required: v.array(v.pipe(names, v.minLength(1))),
});

/** A layout data file as a layout; a file of another shape throws at load, naming the slug and the path. */
export function layoutFrom(data: unknown): ExcelLayout {
  const checked = v.safeParse(LayoutFile, data);
  if (checked.success) return checked.output;
  const issue = checked.issues[0];
  throw new Error(`Excel layout ${String((data as { slug?: unknown })?.slug)}: ${v.getDotPath(issue) ?? '(root)'}: ${issue.message}`);
}
