import {
  Body,
  Delete,
  Get,
  HttpCode,
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
import { Message, Untyped } from '../core/render';
import { ResourceDefinition } from '../core/resource';
import { RecordCollection } from '../sql/collection';
import { ApiDocs } from './api-docs';
import * as Doc from './openapi';
import { RecordIdPipe } from './record-id.pipe';
import { Resource } from './resource.decorator';

/** Applies the decorators only where the collection has the route. */
const when = (on: boolean, ...decorators: MethodDecorator[]) =>
  on ? applyDecorators(...decorators) : () => undefined;

/**
 * The standard routes of a collection (service interface, Endpoints), as its declaration states
 * them, for a controller to extend: `class MarblesController extends CollectionController(MARBLES)`,
 * with `@Controller(MARBLES.path)` on the subclass and any route of its own (adjust_price) as an
 * ordinary method there. Handlers are one line each; the work is in the service.
 */
export function CollectionController(resource: ResourceDefinition) {
  const Id = new RecordIdPipe(resource);
  const { bulk, probes, pagination } = resource;

  @Resource(resource)
  @Doc.CollectionDoc(resource)
  class Base {
    constructor(
      readonly collection: RecordCollection,
      readonly docs: ApiDocs,
    ) {}

    @Get()
    @Doc.IndexDoc(resource, pagination !== null)
    index(@Query() query: QueryParams) {
      return this.collection.list(query);
    }

    @Post()
    @Doc.CreateDoc(resource, bulk)
    create(@Body() body: unknown) {
      return this.collection.create(body);
    }

    @when(bulk, Put(), Doc.UpdateAllDoc(resource))
    replaceAll(@Body() body: unknown) {
      return this.collection.updateAll(body);
    }

    @when(bulk, Patch(), Doc.UpdateAllDoc(resource))
    updateAll(@Body() body: unknown) {
      return this.collection.updateAll(body);
    }

    @when(bulk, Delete(), Doc.DestroyAllDoc(resource))
    destroyAll(@Body() body: unknown) {
      return this.collection.destroyAll(body);
    }

    @Options()
    options() {
      return new Untyped(this.docs.forPath(resource.path));
    }

    @when(probes, Get('ping'), Doc.MessageDoc())
    ping() {
      return new Message('pong');
    }

    @when(probes, Get('child_ping'), Doc.MessageDoc())
    childPing() {
      return new Message('child pong');
    }

    @Get(':id')
    @Doc.ShowDoc(resource)
    show(@Param('id', Id) id: number) {
      return this.collection.show(id);
    }

    @Put(':id')
    @Doc.UpdateDoc(resource)
    replace(@Param('id', Id) id: number, @Body() body: unknown) {
      return this.collection.update(id, body);
    }

    @Patch(':id')
    @Doc.UpdateDoc(resource)
    update(@Param('id', Id) id: number, @Body() body: unknown) {
      return this.collection.update(id, body);
    }

    @Delete(':id')
    @HttpCode(204)
    @Doc.DestroyDoc()
    destroy(@Param('id', Id) id: number) {
      return this.collection.destroy(id);
    }
  }
  return Base as Type<InstanceType<typeof Base>>;
}
