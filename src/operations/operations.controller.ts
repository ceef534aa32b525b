import {
  Body,
  CanActivate,
  Controller,
  ExecutionContext,
  Get,
  HttpCode,
  Inject,
  Injectable,
  Optional,
  Post,
  Req,
  UseGuards,
} from '@nestjs/common';
import type { Request, Response } from 'express';
import { AccessControl, forbiddenHeaders } from '../rest/http/auth/access-control';
import { grants } from '../rest/http/auth/access-rules';
import { principalOf } from '../rest/http/auth/principal';
import { PlainOperation } from '../rest/http/openapi/openapi';
import { RateLimiter } from '../rest/http/rate-limit/rate-limiter';
import { ApiError } from '../rest/http/response/api-error';
import { REST_OPTIONS, RestOptions } from '../rest/http/options/rest-options';
import { ifMatchProblem } from '../rest/http/safe-writes/if-match.guard';
import { Write } from '../rest/http/safe-writes/safe-writes';
import { DESCRIBE_SPEC, OPERATIONS_EXAMPLE, OPERATIONS_SPEC } from './operations-openapi';
import type { PlannedOperation } from './operations-plan';
import { OPERATIONS_OPTIONS, OperationsOptions, OperationsService } from './operations.service';

const PLAN = Symbol('operations plan');
type Planned = Request & { [PLAN]?: PlannedOperation[] };

/**
 * Before anything runs (and before an Idempotency-Key is taken): the body's shape (400 listing
 * every problem), the write scope of every collection it names (403 naming the first missing),
 * and RATE_LIMIT_WRITES, which counts one write per operation (the middleware counted the first).
 */
@Injectable()
export class OperationsGuard implements CanActivate {
  constructor(
    private readonly operations: OperationsService,
    @Inject(OPERATIONS_OPTIONS) private readonly options: OperationsOptions,
    @Optional() @Inject(AccessControl) private readonly access: AccessControl | null,
    @Optional() @Inject(RateLimiter) private readonly limiter: RateLimiter | null,
    @Inject(REST_OPTIONS) private readonly rest: RestOptions,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const http = context.switchToHttp();
    const req = http.getRequest<Planned>();
    const principal = principalOf(req);
    // A token with no write scope at all is refused before its body is looked at.
    if (this.access && principal && ![...principal.scopes].some((s) => s.endsWith(':write'))) {
      const needed = this.access.rules.writeRequirementOf('');
      throw new ApiError(403, needed.forbidden, undefined, forbiddenHeaders(needed));
    }
    const plan = this.operations.plan(req.body, this.options.max);
    // REQUIRE_IF_MATCH: a write of one record without if_match is a 428, as on its own route.
    const route = { conditional: true, required: this.rest.requireIfMatch };
    for (const op of plan) {
      const problem = op.op !== 'create' && ifMatchProblem(route, op.condition !== undefined);
      if (problem) {
        const id = op.id && ('id' in op.id ? ` ${op.id.id}` : '');
        throw new ApiError(
          problem.getStatus(),
          `Operation ${op.place} (${op.op} ${op.collection}${id}): ${problem.message}`.replace(
            'an If-Match header',
            'an if_match',
          ),
          undefined,
          {},
          { operation: op.place },
        );
      }
    }
    if (this.access && principal) {
      for (const collection of this.operations.collectionsOf(plan)) {
        const needed = this.access.rules.writeRequirementOf(collection);
        if (!grants(principal.scopes, needed)) {
          throw new ApiError(403, needed.forbidden, undefined, forbiddenHeaders(needed));
        }
      }
    }
    const refused = await this.limiter?.countWrites(
      req,
      http.getResponse<Response>(),
      plan.length - 1,
    );
    if (refused) throw refused;
    req[PLAN] = plan;
    return true;
  }
}

/** `POST /api/operations`: several writes over several collections, all or nothing. */
@Controller('api/operations')
export class OperationsController {
  constructor(
    private readonly operations: OperationsService,
    @Inject(OPERATIONS_OPTIONS) private readonly options: OperationsOptions,
  ) {}

  /**
   * What the route takes, with an example: for a person in a browser, the page of this answer
   * has a form that sends a body here and shows the results.
   */
  @Get()
  @PlainOperation(DESCRIBE_SPEC)
  describe() {
    return {
      message:
        'POST {"operations": [...]} here: several writes over several collections, in order, in one transaction (docs/operations-api.md).',
      max_operations: this.options.max,
      example: OPERATIONS_EXAMPLE,
    };
  }

  @Post()
  @HttpCode(200)
  @PlainOperation(OPERATIONS_SPEC)
  @UseGuards(OperationsGuard)
  @Write()
  run(@Req() req: Planned, @Body() _body: unknown) {
    return this.operations.run(req[PLAN]!);
  }
}
