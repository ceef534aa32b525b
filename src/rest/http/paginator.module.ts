import { DynamicModule, Module } from '@nestjs/common';
import { DEFAULT_PAGINATOR_OPTIONS, Paginator, PaginatorOptions } from '../core/paginator';

/** Token of the application-wide paginator defaults set by `PaginatorModule.forRoot`. */
export const PAGINATOR_DEFAULTS = Symbol('PAGINATOR_DEFAULTS');

/** Token of one feature module's own options (`null`: pagination disabled). */
export const PAGINATOR_FEATURE_OPTIONS = Symbol('PAGINATOR_FEATURE_OPTIONS');

/**
 * `forRoot` sets the defaults once for the application; `forFeature` gives the importing module
 * its own `Paginator`, with its options laid over those defaults, or disabled with `null`.
 */
@Module({})
export class PaginatorModule {
  static forRoot(options: Partial<PaginatorOptions> = {}): DynamicModule {
    return {
      module: PaginatorModule,
      global: true,
      providers: [
        { provide: PAGINATOR_DEFAULTS, useValue: { ...DEFAULT_PAGINATOR_OPTIONS, ...options } },
      ],
      exports: [PAGINATOR_DEFAULTS],
    };
  }

  static forFeature(options: Partial<PaginatorOptions> | null = {}): DynamicModule {
    return {
      module: PaginatorModule,
      providers: [
        // A plain value under its own token, so that Nest can tell two feature modules apart.
        { provide: PAGINATOR_FEATURE_OPTIONS, useValue: options },
        {
          provide: Paginator,
          useFactory: (
            feature: Partial<PaginatorOptions> | null,
            defaults: PaginatorOptions = DEFAULT_PAGINATOR_OPTIONS,
          ) => new Paginator(feature === null ? null : { ...defaults, ...feature }),
          inject: [PAGINATOR_FEATURE_OPTIONS, { token: PAGINATOR_DEFAULTS, optional: true }],
        },
      ],
      exports: [Paginator],
    };
  }
}
