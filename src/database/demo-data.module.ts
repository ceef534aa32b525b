import {
  DynamicModule,
  Inject,
  Injectable,
  Logger,
  Module,
  OnApplicationBootstrap,
} from '@nestjs/common';
import { DataSource } from 'typeorm';
import { APP_CONFIG } from '../config/config.module';
import { AppConfig } from '../config/configuration';
import { DemoData, DemoRows } from './demo-data';
import { underSchemaLock } from './migrate';

/** Fills an empty database with the demo data on start, unless DEMO_DATA=false. */
@Injectable()
export class DemoDataLoader implements OnApplicationBootstrap {
  private readonly logger = new Logger('DemoData');

  constructor(
    private readonly dataSource: DataSource,
    private readonly demo: DemoData,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    if (!this.config.demoData) return;
    const loaded = await underSchemaLock(this.dataSource, async () => {
      if (!(await this.demo.isEmpty())) return false;
      await this.demo.load();
      return true;
    });
    if (loaded) this.logger.log('Empty database: demo data loaded.');
  }
}

/**
 * The demo data of the application's collections (each gives its rows, in the list's order):
 * `DemoData` for whoever loads or clears it (tests, the loader on start).
 */
@Module({})
export class DemoDataModule {
  static forRoot(collections: readonly DemoRows[]): DynamicModule {
    return {
      module: DemoDataModule,
      providers: [
        {
          provide: DemoData,
          inject: [DataSource],
          useFactory: (dataSource: DataSource) => new DemoData(dataSource, collections),
        },
        DemoDataLoader,
      ],
      exports: [DemoData],
    };
  }
}
