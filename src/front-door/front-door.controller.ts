import { Controller, Get, Req } from '@nestjs/common';
import type { Request } from 'express';
import { Operation, PlainSpec } from '../rest/http/openapi/openapi';
import { linkOrigin } from '../rest/http/response/respond';
import { FrontDoor, Links, linksSchema } from './front-door';

const TAG = {
  name: 'front-door',
  description:
    'Where everything is: the collections, the change feed and its webhooks, atomic operations, the documentation and the health routes.',
};

/** The description of `GET <path>`, the same answer under two paths. */
function describe(operationId: string, path: string): () => PlainSpec {
  return () => ({
    tag: TAG,
    operationId,
    summary: `Links to the collections, the change feed, the documentation and the health routes (${path})`,
    write: false,
    offline: true,
    success: [
      200,
      {
        description: 'Absolute URLs: PUBLIC_URL, or the scheme and (allowed) host of the request.',
        schema: linksSchema(EXAMPLE_NAMES),
        example: EXAMPLE,
      },
    ],
  });
}

// The collections the document names: the application's, set by FrontDoorModule.forRoot before
// the document is built (a route's description is a static decoration).
let EXAMPLE_NAMES: string[] = [];
let EXAMPLE: Links | undefined;

/** The collections the OpenAPI description of the front door names, with its example. */
export function describeFrontDoor(names: string[], example: Links): void {
  EXAMPLE_NAMES = names;
  EXAMPLE = example;
}

/** `GET /`. */
@Controller()
export class RootController {
  constructor(private readonly door: FrontDoor) {}

  @Get()
  @Operation(describe('frontDoor', '/'))
  links(@Req() req: Request): Links {
    return this.door.links(linkOrigin(req));
  }
}

/** `GET /api`. */
@Controller('api')
export class ApiRootController {
  constructor(private readonly door: FrontDoor) {}

  @Get()
  @Operation(describe('apiFrontDoor', '/api'))
  links(@Req() req: Request): Links {
    return this.door.links(linkOrigin(req));
  }
}
