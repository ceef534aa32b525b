import { PipeTransform } from '@nestjs/common';
import { ApiError } from './api-error';
import { ResourceDefinition } from './resource';

const ID = /^[1-9]\d{0,9}$/;

/** A route's `:id` as a positive integer; anything else is a record that does not exist (404). */
export class RecordIdPipe implements PipeTransform<string, number> {
  constructor(private readonly resource: ResourceDefinition) {}

  transform(value: string): number {
    const id = ID.test(value) ? Number(value) : NaN;
    if (!(id <= 2147483647)) throw ApiError.notFound(this.resource.label, value);
    return id;
  }
}
