/**
 * Atomic operations (CONTRACT §15): the operations of one request run in order in one unit of
 * work (SqlDatabase.unitOfWork: one transaction that every write of the collections' services
 * joins), and commit together or not at all. Each operation goes through the same service call
 * its own route makes (RecordCollection's create, update, destroy; a controller's member action),
 * so it is validated, checked, versioned and told to the change feed exactly as that route does
 * it; this file adds only the order, the references between operations and the naming of a
 * failure. A retry of the unit (a deadlock, a Galera certification conflict) runs the whole
 * request again, its references resolved anew.
 */
import { Injectable, OnApplicationBootstrap, RequestMethod, Type } from '@nestjs/common';
import { METHOD_METADATA, PATH_METADATA, ROUTE_ARGS_METADATA } from '@nestjs/common/constants';
import { RouteParamtypes } from '@nestjs/common/enums/route-paramtypes.enum';
import { DiscoveryService, Reflector } from '@nestjs/core';
import { Precondition, ENTITY_TAG, Tagged } from '../rest/core/preconditions';
import { ResourceDefinition, scalarFields } from '../rest/core/resource';
import { SqlDatabase } from '../rest/db/sql-database';
import { resourceOf } from '../rest/http/options/resource.decorator';
import { ApiError } from '../rest/http/response/api-error';
import { clientFailure } from '../rest/http/response/failures';
import { RecordCollection } from '../rest/sql/record-collection';
import type { ApiRecord } from '../rest/sql/record-query';
import { Message } from '../rest/core/output/render';
import { CollectionShape, PlannedOperation, planOf, withIds } from './operations-plan';

/** A member action as its route calls it: `(id, body?, condition?)` in the route's own order. */
type ActionCall = (id: number, body: unknown, condition?: Precondition) => Promise<unknown>;

/** A collection as the operations reach it. */
interface Target {
  resource: ResourceDefinition;
  collection: RecordCollection;
  actions: Map<string, { body: boolean; call: ActionCall }>;
  shape: CollectionShape;
}

/** One operation's answer, as `results` lists it. */
export type OperationResult =
  | { status: 201 | 200; record: ApiRecord; etag?: string }
  | { status: 204 }
  | { status: 200; message: string };

/** The operations' settings: OPERATIONS_MAX. */
export const OPERATIONS_OPTIONS = Symbol('OPERATIONS_OPTIONS');
export interface OperationsOptions {
  max: number;
}

@Injectable()
export class OperationsService implements OnApplicationBootstrap {
  private readonly targets = new Map<string, Target>();
  private shapes = new Map<string, CollectionShape>();

  constructor(
    private readonly discovery: DiscoveryService,
    private readonly reflector: Reflector,
    private readonly db: SqlDatabase,
  ) {}

  /** The collections' controllers, found once every module is up: their services and actions. */
  onApplicationBootstrap(): void {
    const byTable = new Map<string, string>();
    const found: { resource: ResourceDefinition; instance: object; type: Type }[] = [];
    for (const wrapper of this.discovery.getControllers()) {
      const type = wrapper.metatype as Type | undefined;
      const instance = wrapper.instance as { collection?: unknown } | undefined;
      if (!type || !instance) continue;
      const resource = resourceOf(this.reflector, type);
      if (!resource || !(instance.collection instanceof RecordCollection)) continue;
      found.push({ resource, instance, type });
      byTable.set(resource.table, resource.plural);
    }
    for (const { resource, instance, type } of found) {
      const actions = actionsOf(type, instance);
      const foreignKeys = new Map<string, string>();
      for (const field of scalarFields(resource)) {
        const target = field.write && field.references && byTable.get(field.references);
        if (target) foreignKeys.set(field.name, target);
      }
      const shape: CollectionShape = {
        plural: resource.plural,
        singular: resource.singular,
        actions: new Map([...actions].map(([name, a]) => [name, { body: a.body }])),
        foreignKeys,
      };
      this.targets.set(resource.plural, {
        resource,
        collection: (instance as { collection: RecordCollection }).collection,
        actions,
        shape,
      });
    }
    this.shapes = new Map([...this.targets].map(([name, target]) => [name, target.shape]));
  }

  /** The plan of a request's body: a 400 listing every problem of its shape. */
  plan(body: unknown, max: number): PlannedOperation[] {
    return planOf(body, this.shapes, max);
  }

  /** The collections a plan writes, in the order they first appear (the scopes it needs). */
  collectionsOf(plan: PlannedOperation[]): string[] {
    return [...new Set(plan.map((op) => op.collection))];
  }

  /** Runs the plan: every operation, in order, in one unit of work; all commit or none does. */
  run(plan: PlannedOperation[]): Promise<{ results: OperationResult[] }> {
    return this.db.unitOfWork(async () => {
      const ids = new Map<string, number>();
      const results: OperationResult[] = [];
      for (const operation of plan) {
        try {
          results.push(await this.one(operation, ids));
        } catch (error) {
          throw failed(operation, ids, error);
        }
      }
      return { results };
    });
  }

  private async one(op: PlannedOperation, ids: Map<string, number>): Promise<OperationResult> {
    const target = this.targets.get(op.collection)!;
    const idOf = (ref: string) => ids.get(ref)!;
    const id = op.id && ('id' in op.id ? op.id.id : idOf(op.id.ref));
    const record = withIds(op.record, target.resource.singular, op.refFields, idOf);
    switch (op.op) {
      case 'create': {
        const created = (await target.collection.create(record)) as ApiRecord;
        if (op.ref !== undefined) ids.set(op.ref, Number(created.id));
        return withTag({ status: 201, record: created });
      }
      case 'update':
        return withTag({
          status: 200,
          record: await target.collection.update(id!, record, op.condition),
        });
      case 'destroy':
        await target.collection.destroy(id!, op.condition);
        return { status: 204 };
      default: {
        const answer = await target.actions.get(op.op)!.call(id!, record ?? {}, op.condition);
        return { status: 200, message: (answer as Message).message };
      }
    }
  }
}

/** The record's ETag beside it, as the single routes send it in the header. */
function withTag(result: { status: 201 | 200; record: ApiRecord }): OperationResult {
  const etag = (result.record as Tagged)[ENTITY_TAG];
  return etag === undefined ? result : { ...result, etag };
}

/**
 * The error of a failed operation: the status its own route would answer, its message prefixed
 * with the operation ("Operation 3 (update marbles 7): Marble 7 not found."), and its place.
 * Errors that are not the request's (the database unavailable, a conflict to retry) pass as
 * they are: the unit of work retries or answers them as for any write.
 */
function failed(op: PlannedOperation, ids: Map<string, number>, error: unknown): unknown {
  const failure = clientFailure(error);
  if (!failure) return error;
  const id = op.id && ('id' in op.id ? op.id.id : ids.get(op.id.ref));
  const name = `Operation ${op.place} (${op.op} ${op.collection}${id === undefined ? '' : ` ${id}`})`;
  const members: Record<string, unknown> = { operation: op.place };
  if (failure.body.errors !== undefined) members.errors = failure.body.errors;
  return new ApiError(
    failure.status,
    `${name}: ${failure.body.message}`,
    undefined,
    failure.headers,
    members,
  );
}

/**
 * A controller's member actions: its `PATCH :id/<name>` routes, each called with the id, the
 * body (if the route reads one) and the If-Match precondition, in the order of its parameters.
 */
function actionsOf(type: Type, instance: object): Map<string, { body: boolean; call: ActionCall }> {
  const actions = new Map<string, { body: boolean; call: ActionCall }>();
  const seen = new Set<string>();
  for (
    let proto = type.prototype as object | null;
    proto && proto !== Object.prototype;
    proto = Object.getPrototypeOf(proto) as object | null
  ) {
    for (const name of Object.getOwnPropertyNames(proto)) {
      if (seen.has(name) || name === 'constructor') continue;
      seen.add(name);
      const method = (proto as Record<string, unknown>)[name];
      if (typeof method !== 'function') continue;
      const path = Reflect.getMetadata(PATH_METADATA, method) as string | undefined;
      const verb = Reflect.getMetadata(METHOD_METADATA, method) as RequestMethod | undefined;
      const match = typeof path === 'string' ? /^\/?:id\/(\w+)$/.exec(path) : null;
      if (!match || verb !== RequestMethod.PATCH) continue;
      const params = (Reflect.getMetadata(ROUTE_ARGS_METADATA, type, name) ?? {}) as Record<
        string,
        { index: number }
      >;
      const slots = Object.entries(params).map(([key, { index }]) => {
        const kind = Number(key.split(':')[0]);
        const what =
          kind === RouteParamtypes.BODY
            ? 'body'
            : kind === RouteParamtypes.PARAM
              ? 'id'
              : 'condition';
        return { index, what };
      });
      const body = slots.some((s) => s.what === 'body');
      const call: ActionCall = (id, input, condition) => {
        const args: unknown[] = [];
        for (const { index, what } of slots) {
          args[index] = what === 'id' ? id : what === 'body' ? input : condition;
        }
        return (method as (...a: unknown[]) => Promise<unknown>).apply(instance, args);
      };
      actions.set(match[1], { body, call });
    }
  }
  return actions;
}
