import { DynamicModule, Module } from '@nestjs/common';
import { ResourceDeclaration } from '../rest/core/resource';
import { FrontDoor } from './front-door';
import { ApiRootController, describeFrontDoor, RootController } from './front-door.controller';

/** An example origin for the OpenAPI document's example of the front door. */
const EXAMPLE_ORIGIN = 'http://localhost:3000';

/**
 * `GET /` and `GET /api`: links to the collections the application serves (given here, in its
 * order), the change feed (when EVENTS_ENABLED), the API documentation, the OpenAPI document and the health routes, in JSON or XML.
 */
@Module({})
export class FrontDoorModule {
  static forRoot(collections: readonly ResourceDeclaration[], events: boolean): DynamicModule {
    const door = new FrontDoor(collections, events);
    describeFrontDoor(door.names, door.links(EXAMPLE_ORIGIN));
    return {
      module: FrontDoorModule,
      controllers: [RootController, ApiRootController],
      providers: [{ provide: FrontDoor, useValue: door }],
    };
  }
}
