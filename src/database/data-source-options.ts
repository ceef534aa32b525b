import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { DataSourceOptions } from 'typeorm';
import { DatabaseConfig } from '../config/configuration';
import { Email } from '../emails/email.entity';
import { Genre } from '../genres/genre.entity';
import { Marble } from '../marbles/marble.entity';
import { GenreMovie, Movie, MovieUser } from '../movies/movie.entity';
import { PhoneNumber } from '../phone-numbers/phone-number.entity';
import { User } from '../users/user.entity';
import { entitiesFor } from './entity-dialects';
import { Init1732000000000 } from './migrations/1732000000000-init';

/** The part of better-sqlite3's Database used here. */
interface SqliteDatabase {
  function(name: string, options: { deterministic: boolean }, fn: (text: unknown) => unknown): void;
}

export const ENTITIES = [User, Genre, Email, Marble, PhoneNumber, Movie, GenreMovie, MovieUser];
export const MIGRATIONS = [Init1732000000000];

/** TypeORM options for a configured database. Schema changes are migrations, never `synchronize`. */
export function dataSourceOptions(database: DatabaseConfig): DataSourceOptions {
  const common = {
    // Shaped for the database: src/database/entity-dialects.ts.
    entities: entitiesFor(database.type, ENTITIES),
    migrations: MIGRATIONS,
    // Run by openDatabase, under a lock, rather than by TypeORM on connect.
    migrationsRun: false,
    synchronize: false,
    logging: false,
  };
  if (database.type === 'sqlite') {
    if (database.path !== ':memory:') mkdirSync(dirname(database.path), { recursive: true });
    return {
      ...common,
      type: 'better-sqlite3',
      database: database.path,
      enableWAL: true,
      // SQLite's own LOWER folds ASCII only; case-insensitive search must hold for É as on MySQL.
      prepareDatabase: (db: SqliteDatabase) =>
        db.function('lower', { deterministic: true }, (text: unknown) =>
          typeof text === 'string' ? text.toLowerCase() : text,
        ),
    };
  }
  return {
    ...common,
    type: 'mysql',
    url: database.url,
    charset: 'utf8mb4',
    // Timestamps are stored in UTC and read back as text, so no time zone ever shifts them.
    timezone: 'Z',
    dateStrings: true,
    supportBigNumbers: true,
    bigNumberStrings: true,
    poolSize: 10,
  };
}
