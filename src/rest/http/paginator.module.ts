import { DynamicModule, Module } from '@nestjs/common';
import { DEFAULT_PAGINATOR_OPTIONS, Paginator, PaginatorOptions } from '../core/paginator';

/** Token of the application-wide paginator defaults set by `PaginatorModule.forRoot`. */
export const PAGINATOR_DEFAULTS = Symbol('PAGINATOR_DEFAULTS');

/** Token of the per-collection options set by `PaginatorModule.forRoot` (from the environment). */
export const PAGINATOR_OVERRIDES = Symbol('PAGINATOR_OVERRIDES');

/** Token of one feature module's own options (`null`: pagination disabled). */
export const PAGINATOR_FEATURE_OPTIONS = Symbol('PAGINATOR_FEATURE_OPTIONS');

/** Token of the name of the collection a feature module's paginator serves (or null). */
export const PAGINATOR_COLLECTION = Symbol('PAGINATOR_COLLECTION');

/** Options by collection name, laid over a feature's own (e.g. `{marbles: {pageTotalCount: false}}`). */
export type PaginatorOverrides = Record<string, Partial<PaginatorOptions>>;

/**
 * `forRoot` sets the defaults once for the application, and optionally options for named
 * collections that win over the collections' own; `forFeature` gives the importing module its own
 * `Paginator`, with its options laid over those defaults, or disabled with `null`.
 */
@Module({})
export class PaginatorModule {
  static forRoot(
    options: Partial<PaginatorOptions> = {},
    overrides: PaginatorOverrides = {},
  ): DynamicModule {
    return {
      module: PaginatorModule,
      global: true,
      providers: [
        { provide: PAGINATOR_DEFAULTS, useValue: { ...DEFAULT_PAGINATOR_OPTIONS, ...options } },
        { provide: PAGINATOR_OVERRIDES, useValue: overrides },
      ],
      exports: [PAGINATOR_DEFAULTS, PAGINATOR_OVERRIDES],
    };
  }

  /** `collection` names the feature for the overrides of `forRoot`. */
  static forFeature(
    options: Partial<PaginatorOptions> | null = {},
    collection: string | null = null,
  ): DynamicModule {
    return {
      module: PaginatorModule,
      providers: [
        // Plain values under their own tokens, so that Nest can tell two feature modules apart.
        { provide: PAGINATOR_FEATURE_OPTIONS, useValue: options },
        { provide: PAGINATOR_COLLECTION, useValue: collection },
        {
          provide: Paginator,
          useFactory: (
            feature: Partial<PaginatorOptions> | null,
            name: string | null,
            defaults: PaginatorOptions = DEFAULT_PAGINATOR_OPTIONS,
            overrides: PaginatorOverrides = {},
          ) =>
            new Paginator(
              feature === null
                ? null
                : { ...defaults, ...feature, ...(name === null ? {} : overrides[name]) },
            ),
          inject: [
            PAGINATOR_FEATURE_OPTIONS,
            PAGINATOR_COLLECTION,
            { token: PAGINATOR_DEFAULTS, optional: true },
            { token: PAGINATOR_OVERRIDES, optional: true },
          ],
        },
      ],
      exports: [Paginator],
    };
  }
}
