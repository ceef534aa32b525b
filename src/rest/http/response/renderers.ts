/**
 * Every format the service answers in, by name: the one place where a format is added (a
 * Renderer, and its name in Format; request/format.ts negotiates among these names).
 */
import {
  Failure,
  JSON_RENDERER,
  RenderRequest,
  Renderer,
  Rendering,
  XML_RENDERER,
  renderError as renderErrorWith,
  renderResult as renderResultWith,
} from '../../core/output/render';
import { CSV_RENDERER } from '../../core/output/csv';
import { ResourceDefinition } from '../../core/resource';
import { HTML_RENDERER } from '../browsable/html-renderer';

export type Format = 'json' | 'xml' | 'html' | 'csv';

export const RENDERERS: Record<Format, Renderer> = {
  json: JSON_RENDERER,
  xml: XML_RENDERER,
  html: HTML_RENDERER,
  csv: CSV_RENDERER,
};

/**
 * The format an error is answered in, for a request in `format`: a CSV request's errors are JSON
 * (`{message, errors?}`, application/json), since a table has no place for a message.
 */
export function errorFormat(format: Format): Format {
  return format === 'csv' ? 'json' : format;
}

/** A handler's result in `format`, with its headers (core/output/render.ts's `renderResult`). */
export function renderResult(
  result: unknown,
  format: Format,
  resource: ResourceDefinition | undefined,
  request: RenderRequest,
): Rendering {
  return renderResultWith(result, RENDERERS[format], resource, request);
}

/** An error in `format`, with its headers. */
export function renderError(format: Format, failure: Failure, request?: RenderRequest): Rendering {
  return renderErrorWith(RENDERERS[errorFormat(format)], failure, request);
}
