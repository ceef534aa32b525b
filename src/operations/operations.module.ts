import { DynamicModule, Module } from '@nestjs/common';
import { DiscoveryModule } from '@nestjs/core';
import { OperationsController, OperationsGuard } from './operations.controller';
import { OPERATIONS_OPTIONS, OperationsOptions, OperationsService } from './operations.service';

/**
 * Atomic operations (docs/operations-api.md): `POST /api/operations` over every collection the
 * application serves, found through their controllers once the application is up.
 */
@Module({})
export class OperationsModule {
  static forRoot(options: OperationsOptions): DynamicModule {
    return {
      module: OperationsModule,
      imports: [DiscoveryModule],
      controllers: [OperationsController],
      providers: [
        { provide: OPERATIONS_OPTIONS, useValue: options },
        OperationsService,
        OperationsGuard,
      ],
    };
  }
}
