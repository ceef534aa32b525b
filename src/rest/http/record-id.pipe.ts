import { PipeTransform } from '@nestjs/common';
import { RecordError } from '../core/errors';
import { ResourceDefinition } from '../core/resource';
import { recordId } from '../core/values';

/** An id as a path writes it: digits without a leading zero. */
const CANONICAL = /^[1-9]\d*$/;

/** A route's `:id` as a positive integer; anything else is a record that does not exist (404). */
export class RecordIdPipe implements PipeTransform<string, number> {
  constructor(private readonly resource: ResourceDefinition) {}

  transform(value: string): number {
    const id = CANONICAL.test(value) ? recordId(value) : undefined;
    if (id === undefined) throw RecordError.notFound(this.resource.label, value);
    return id;
  }
}
