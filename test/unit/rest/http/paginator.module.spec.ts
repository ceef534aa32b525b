import { Inject, Injectable, Module } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { Paginator } from '../../../../src/rest/core/paginator';
import { PAGINATOR_DEFAULTS, PaginatorModule } from '../../../../src/rest/http/paginator.module';

@Injectable()
class DemoListing {
  constructor(@Inject(Paginator) readonly paginator: Paginator) {}
}

@Module({
  imports: [PaginatorModule.forFeature({ pageSize: 30 })],
  providers: [DemoListing],
  exports: [DemoListing],
})
class DemoFeatureModule {}

@Injectable()
class PlainListing {
  constructor(@Inject(Paginator) readonly paginator: Paginator) {}
}

@Module({
  imports: [PaginatorModule.forFeature(null)],
  providers: [PlainListing],
  exports: [PlainListing],
})
class PlainFeatureModule {}

@Injectable()
class CustomListing {
  constructor(@Inject(Paginator) readonly paginator: Paginator) {}
}

@Module({
  imports: [PaginatorModule.forFeature({ pageSize: 10, pageQueryParam: 'p' })],
  providers: [CustomListing],
  exports: [CustomListing],
})
class CustomFeatureModule {}

@Injectable()
class DefaultListing {
  constructor(@Inject(Paginator) readonly paginator: Paginator) {}
}

@Module({
  imports: [PaginatorModule.forFeature()],
  providers: [DefaultListing],
  exports: [DefaultListing],
})
class DefaultFeatureModule {}

/** The built-in defaults of the paginator options. */
const BUILT_IN = {
  pageSize: 20,
  pageQueryParam: 'page',
  pageSizeQueryParam: 'page_size',
  maxPageSize: 40,
  pageTotalCount: true,
};

/** The defaults once forRoot has set its own: `{ maxPageSize: 50, pageTotalCount: false }`. */
const ROOT_OPTIONS = { ...BUILT_IN, maxPageSize: 50, pageTotalCount: false };

describe('PaginatorModule', () => {
  describe('with forRoot defaults', () => {
    const compile = () =>
      Test.createTestingModule({
        imports: [
          PaginatorModule.forRoot({ maxPageSize: 50, pageTotalCount: false }),
          DemoFeatureModule,
          PlainFeatureModule,
          CustomFeatureModule,
          DefaultFeatureModule,
        ],
      }).compile();

    it('should give each importing module its own Paginator', async () => {
      const app = await compile();
      const demo = app.get(DemoListing).paginator;
      const plain = app.get(PlainListing).paginator;
      const custom = app.get(CustomListing).paginator;
      expect(demo).toBeInstanceOf(Paginator);
      expect(plain).toBeInstanceOf(Paginator);
      expect(demo).not.toBe(plain);
      expect(demo).not.toBe(custom);
      expect(plain).not.toBe(custom);
      await app.close();
    });

    it('should lay feature options over the forRoot defaults', async () => {
      const app = await compile();
      expect(app.get(DemoListing).paginator.options).toStrictEqual({
        ...ROOT_OPTIONS,
        pageSize: 30,
      });
      expect(app.get(CustomListing).paginator.options).toStrictEqual({
        ...ROOT_OPTIONS,
        pageSize: 10,
        pageQueryParam: 'p',
      });
      await app.close();
    });

    it('should disable pagination for a module that registers null', async () => {
      const app = await compile();
      const plain = app.get(PlainListing).paginator;
      expect(plain.options).toBeNull();
      expect(plain.request({ page: '2', page_size: '5' })).toStrictEqual({ all: true });
      await app.close();
    });

    it('should use the forRoot defaults as they are for forFeature without options', async () => {
      const app = await compile();
      expect(app.get(DefaultListing).paginator.options).toStrictEqual({ ...ROOT_OPTIONS });
      await app.close();
    });

    it('should fill forRoot options it was not given from the built-in defaults', async () => {
      const app = await compile();
      expect(app.get(PAGINATOR_DEFAULTS)).toStrictEqual({ ...ROOT_OPTIONS });
      await app.close();
    });

    it('should let the feature options decide the pages each module serves', async () => {
      const app = await compile();
      expect(app.get(DemoListing).paginator.request({ page_size: '45' })).toStrictEqual({
        all: false,
        page: 1,
        pageSize: 45,
      });
      expect(app.get(CustomListing).paginator.request({ p: '2' })).toStrictEqual({
        all: false,
        page: 2,
        pageSize: 10,
      });
      await app.close();
    });
  });

  describe('without forRoot', () => {
    it('should lay feature options over the built-in defaults', async () => {
      const app = await Test.createTestingModule({
        imports: [DemoFeatureModule, PlainFeatureModule],
      }).compile();
      expect(app.get(DemoListing).paginator.options).toStrictEqual({ ...BUILT_IN, pageSize: 30 });
      expect(app.get(PlainListing).paginator.options).toBeNull();
      await app.close();
    });

    it('should use the built-in defaults for forFeature without options', async () => {
      const app = await Test.createTestingModule({ imports: [DefaultFeatureModule] }).compile();
      expect(app.get(DefaultListing).paginator.options).toStrictEqual({ ...BUILT_IN });
      await app.close();
    });
  });

  describe('when Nest identifies modules by a deep hash of their metadata', () => {
    it('should still give modules with different feature options different paginators', async () => {
      const app = await Test.createTestingModule(
        { imports: [PaginatorModule.forRoot(), DemoFeatureModule, PlainFeatureModule] },
        { moduleIdGeneratorAlgorithm: 'deep-hash' },
      ).compile();
      expect(app.get(DemoListing).paginator.options).toStrictEqual({ ...BUILT_IN, pageSize: 30 });
      expect(app.get(PlainListing).paginator.options).toBeNull();
      await app.close();
    });
  });
});
