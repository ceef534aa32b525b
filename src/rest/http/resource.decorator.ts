import { SetMetadata } from '@nestjs/common';
import { ResourceDefinition } from '../core/resource';

export const RESOURCE = Symbol('RESOURCE');

/** Names the collection a controller serves, so responses are encoded by its declaration. */
export const Resource = (definition: ResourceDefinition) => SetMetadata(RESOURCE, definition);
