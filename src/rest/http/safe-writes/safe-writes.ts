/**
 * The decorators of safe writes. Every write route carries one of them, which attaches the two
 * units of a write: the If-Match rule (a guard, if-match.guard.ts) and Idempotency-Key (an
 * interceptor, idempotency.interceptor.ts). Reads carry neither and pay for neither.
 */
import {
  ExecutionContext,
  SetMetadata,
  UseGuards,
  UseInterceptors,
  applyDecorators,
  createParamDecorator,
} from '@nestjs/common';
import type { Request } from 'express';
import { Precondition, parseIfMatch } from '../../core/preconditions';
import { ConditionalWriteGuard, UnconditionalWriteGuard } from './if-match.guard';
import { IdempotencyInterceptor } from './idempotency.interceptor';

export const CONDITIONAL = Symbol('conditional write');

/** A write of the collection (create, bulk forms): takes Idempotency-Key; If-Match is a 400. */
export const Write = () =>
  applyDecorators(UseGuards(UnconditionalWriteGuard), UseInterceptors(IdempotencyInterceptor));

/**
 * A write of one record (PUT, PATCH, DELETE of /:id, record actions): takes Idempotency-Key and
 * If-Match (`@IfMatch()`), which REQUIRE_IF_MATCH makes required (428 without it).
 */
export const Conditional = () =>
  applyDecorators(
    SetMetadata(CONDITIONAL, true),
    UseGuards(ConditionalWriteGuard),
    UseInterceptors(IdempotencyInterceptor),
  );

/** The route's If-Match as a precondition (undefined without one); a malformed header is 400. */
export const IfMatch = createParamDecorator(
  (_: unknown, context: ExecutionContext): Precondition | undefined =>
    parseIfMatch(context.switchToHttp().getRequest<Request>().headers['if-match']),
);
