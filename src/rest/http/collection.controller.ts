import {
  Body,
  Delete,
  Get,
  HttpCode,
  Inject,
  Optional,
  Options,
  Param,
  Patch,
  Post,
  Put,
  Query,
  Type,
  applyDecorators,
} from '@nestjs/common';
import { QueryParams } from '../core/list-query';
import { Precondition } from '../core/preconditions';
import { Message, ShapelessBody } from '../core/output/render';
import { ResourceDefinition } from '../core/resource';
import { RecordCollection } from '../sql/record-collection';
import { ApiDocs } from './openapi/api-docs';
import * as Doc from './openapi/openapi';
import { Operation } from './openapi/openapi';
import { RecordIdPipe } from './record-id.pipe';
import { XmlRootPipe } from './xml-root.pipe';
import { Streamed } from './response/render.interceptor';
import { Resource } from './options/resource.decorator';
import { REST_OPTIONS, RestOptions } from './options/rest-options';
import { Conditional, IfMatch, Write } from './safe-writes/safe-writes';

/** Applies the decorators only where the collection has the route. */
const routeIf = (on: boolean, ...decorators: MethodDecorator[]) =>
  on ? applyDecorators(...decorators) : () => undefined;

/**
 * The standard routes of a collection (index, create, the bulk writes, options, ping, show, update,
 * destroy), as its declaration states them, for a controller to extend:
 * `class MarblesController extends CollectionController(MARBLES)`, with `@Controller(MARBLES.path)`
 * on the subclass and any route of its own (adjust_price) as an ordinary method there. Handlers are
 * one line each; the work is in the service.
 */
export function CollectionController(resource: ResourceDefinition) {
  const Id = new RecordIdPipe(resource);
  const Root = new XmlRootPipe(resource);
  const IdsRoot = new XmlRootPipe(resource, { ids: true });
  const { bulk, probes } = resource;

  @Resource(resource)
  class Base {
    constructor(
      readonly collection: RecordCollection,
      readonly docs: ApiDocs,
    ) {}

    /** STRICT_QUERY, by property so that a subclass's constructor stays (service, docs). */
    @Optional()
    @Inject(REST_OPTIONS)
    readonly restOptions?: RestOptions;

    @Get()
    @Operation(Doc.INDEX)
    index(@Query() query: QueryParams, @Streamed() streamed: boolean) {
      return this.collection.list(query, { streamed, strict: this.restOptions?.strictQuery });
    }

    @Post()
    @Operation(bulk ? Doc.BULK_CREATE : Doc.CREATE)
    @Write()
    create(@Body(Root) body: unknown, @Query() query: QueryParams) {
      return this.collection.create(body, query);
    }

    @routeIf(bulk, Put(), Operation(Doc.REPLACE_ALL), Write())
    replaceAll(@Body(Root) body: unknown, @Query() query: QueryParams) {
      return this.collection.updateAll(body, query);
    }

    @routeIf(bulk, Patch(), Operation(Doc.UPDATE_ALL), Write())
    updateAll(@Body(Root) body: unknown, @Query() query: QueryParams) {
      return this.collection.updateAll(body, query);
    }

    @routeIf(bulk, Delete(), Operation(Doc.DESTROY_ALL), Write())
    destroyAll(@Body(IdsRoot) body: unknown, @Query() query: QueryParams) {
      return this.collection.destroyAll(body, query);
    }

    @Options()
    @Operation(Doc.OPTIONS)
    options() {
      return new ShapelessBody(this.docs.forPath(resource.path));
    }

    @routeIf(probes, Get('ping'), Operation(Doc.PING))
    ping() {
      return new Message('pong');
    }

    @routeIf(probes, Get('child_ping'), Operation(Doc.CHILD_PING))
    childPing() {
      return new Message('child pong');
    }

    @Get(':id')
    @Operation(Doc.SHOW)
    show(@Param('id', Id) id: number, @Query() query: QueryParams) {
      return this.collection.show(id, query);
    }

    @Put(':id')
    @Operation(Doc.REPLACE)
    @Conditional()
    replace(
      @Param('id', Id) id: number,
      @Body(Root) body: unknown,
      @IfMatch() condition?: Precondition,
    ) {
      return this.collection.update(id, body, condition);
    }

    @Patch(':id')
    @Operation(Doc.UPDATE)
    @Conditional()
    update(
      @Param('id', Id) id: number,
      @Body(Root) body: unknown,
      @IfMatch() condition?: Precondition,
    ) {
      return this.collection.update(id, body, condition);
    }

    @Delete(':id')
    @HttpCode(204)
    @Operation(Doc.DESTROY)
    @Conditional()
    destroy(@Param('id', Id) id: number, @IfMatch() condition?: Precondition) {
      return this.collection.destroy(id, condition);
    }
  }
  return Base as Type<InstanceType<typeof Base>>;
}
