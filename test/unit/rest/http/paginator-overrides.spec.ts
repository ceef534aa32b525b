import { Inject, Injectable, Module } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { Paginator } from '../../../../src/rest/core/paginator';
import { PaginatorModule } from '../../../../src/rest/http/paginator.module';

/** A feature module named `name` whose listing holds the Paginator it was given. */
function feature(name: string | null, options: { pageSize: number } | null) {
  @Injectable()
  class Listing {
    constructor(@Inject(Paginator) readonly paginator: Paginator) {}
  }
  @Module({
    imports: [PaginatorModule.forFeature(options, name)],
    providers: [Listing],
    exports: [Listing],
  })
  class Feature {}
  return { Feature, Listing };
}

describe('PaginatorModule overrides by collection name', () => {
  const marbles = feature('marbles', { pageSize: 30 });
  const emails = feature('emails', { pageSize: 30 });
  const unnamed = feature(null, { pageSize: 30 });
  const movies = feature('movies', null);

  async function boot(overrides: Record<string, { pageTotalCount: boolean }>) {
    const app = await Test.createTestingModule({
      imports: [
        PaginatorModule.forRoot({ pageTotalCount: true }, overrides),
        marbles.Feature,
        emails.Feature,
        unnamed.Feature,
        movies.Feature,
      ],
    }).compile();
    return (listing: { new (...args: never[]): { paginator: Paginator } }) =>
      app.get(listing).paginator.options;
  }

  it('should lay a named override over the feature options and the defaults', async () => {
    const options = await boot({ marbles: { pageTotalCount: false } });
    expect(options(marbles.Listing)).toMatchObject({ pageSize: 30, pageTotalCount: false });
    expect(options(emails.Listing)).toMatchObject({ pageSize: 30, pageTotalCount: true });
    expect(options(unnamed.Listing)).toMatchObject({ pageSize: 30, pageTotalCount: true });
  });

  it('should keep pagination disabled for a feature that disabled it', async () => {
    const options = await boot({ movies: { pageTotalCount: false } });
    expect(options(movies.Listing)).toBeNull();
  });
});
