import { h, type VNode } from 'preact';
import htm from 'htm';

/**
 * Templates as tagged strings (htm), turned into Preact elements: every interpolated value is a
 * text node or an attribute value, never markup, so no server string is ever parsed as HTML.
 */
export const html = htm.bind(h) as (strings: TemplateStringsArray, ...values: unknown[]) => VNode;
