import { SetMetadata, Type } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { ResourceDefinition } from '../../core/resource';

export const RESOURCE = Symbol('RESOURCE');

/** Names the collection a controller serves, so responses are encoded by its declaration. */
export const Resource = (definition: ResourceDefinition) => SetMetadata(RESOURCE, definition);

/** The declaration of each controller class, looked up once. */
const resources = new WeakMap<Type, ResourceDefinition | null>();

/** The declaration a controller serves, or undefined for a controller of no collection. */
export function resourceOf(reflector: Reflector, controller: Type): ResourceDefinition | undefined {
  let resource = resources.get(controller);
  if (resource === undefined) {
    resource = reflector.get<ResourceDefinition | undefined>(RESOURCE, controller) ?? null;
    resources.set(controller, resource);
  }
  return resource ?? undefined;
}
