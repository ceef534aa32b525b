import { CanActivate, ExecutionContext, Inject, Injectable } from '@nestjs/common';
import type { Request } from 'express';
import { ApiError } from '../response/api-error';
import { REST_OPTIONS, RestOptions } from '../options/rest-options';

/** How a write route takes If-Match, fixed when the route is declared. */
export interface IfMatchRoute {
  /** A write of one record (`@Conditional()`): If-Match applies to it. */
  conditional: boolean;
  /** REQUIRE_IF_MATCH: a conditional write without If-Match is refused. */
  required: boolean;
}

/**
 * The If-Match rule of a write: a write of one record may carry If-Match, and must when it is
 * required (428); any other write carrying it is a 400. Undefined when the request may go on.
 */
export function ifMatchProblem(route: IfMatchRoute, given: boolean): ApiError | undefined {
  if (route.conditional && !given && route.required) {
    return new ApiError(
      428,
      'This write needs an If-Match header with the record\'s ETag (or "*"): read the record first.',
    );
  }
  if (!route.conditional && given) {
    return new ApiError(
      400,
      'If-Match applies to writes of one record (PUT, PATCH, DELETE of /:id and the record actions), not here.',
    );
  }
  return undefined;
}

function check(route: IfMatchRoute, context: ExecutionContext): true {
  const given = context.switchToHttp().getRequest<Request>().headers['if-match'] !== undefined;
  const problem = ifMatchProblem(route, given);
  if (problem) throw problem;
  return true;
}

/** On writes of one record (`@Conditional()`): If-Match taken, required with REQUIRE_IF_MATCH. */
@Injectable()
export class ConditionalWriteGuard implements CanActivate {
  private readonly route: IfMatchRoute;

  constructor(@Inject(REST_OPTIONS) options: RestOptions) {
    this.route = { conditional: true, required: options.requireIfMatch };
  }

  canActivate(context: ExecutionContext): true {
    return check(this.route, context);
  }
}

/** On the other writes (`@Write()`): If-Match refused. */
@Injectable()
export class UnconditionalWriteGuard implements CanActivate {
  private readonly route: IfMatchRoute = { conditional: false, required: false };

  canActivate(context: ExecutionContext): true {
    return check(this.route, context);
  }
}
