import { PipeTransform } from '@nestjs/common';
import { RecordError } from '../core/errors';
import { withArticle } from '../core/names';
import { ResourceDefinition } from '../core/resource';
import { xmlRootOf } from '../core/input/xml-input';

/**
 * An XML body's root element must name the collection it is sent to, or be one of the generic
 * roots the service itself writes: `<hash>` or `<marble>` for an object, `<hash>`, `<objects>` or
 * `<marbles>` (type="array") for an array, and `<ids>` too for the ids of a bulk destroy. A
 * `<phone-number>` posted to the marbles would otherwise be read as a marble. Names with `_` or
 * `-` (`<phone_number>`, `<phone-number>`) are the same name. JSON bodies pass as they are.
 */
export class XmlRootPipe implements PipeTransform<unknown, unknown> {
  private readonly objectRoots: string[];
  private readonly arrayRoots: string[];
  private readonly one: string;
  private readonly many: string;

  constructor(resource: ResourceDefinition, options: { ids?: boolean } = {}) {
    const dashed = (name: string) => name.replace(/_/g, '-');
    this.one = resource.label.toLowerCase();
    this.many = resource.plural.replace(/_/g, ' ');
    this.objectRoots = [dashed(resource.singular), 'hash'];
    this.arrayRoots = [dashed(resource.plural), ...(options.ids ? ['ids'] : []), 'objects', 'hash'];
  }

  transform(body: unknown): unknown {
    const root = xmlRootOf(body);
    if (root === undefined) return body;
    const array = Array.isArray(body);
    const roots = array ? this.arrayRoots : this.objectRoots;
    if (roots.includes(root.replace(/_/g, '-'))) return body;
    const names = roots.map((name) => `<${name}>`);
    const listed = `${names.slice(0, -1).join(', ')} or ${names[names.length - 1]}`;
    throw RecordError.invalid(
      `XML root element <${root}> does not name ${array ? this.many : withArticle(this.one).toLowerCase()}: ` +
        `send ${listed}${array ? ' (with type="array")' : ''}.`,
    );
  }
}
