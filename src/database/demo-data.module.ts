import { Inject, Injectable, Logger, Module, OnApplicationBootstrap } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { APP_CONFIG } from '../config/config.module';
import { AppConfig } from '../config/configuration';
import { DemoData } from './demo-data';
import { underSchemaLock } from './migrate';

/** Fills an empty database with the demo data on start, unless DEMO_DATA=false. */
@Injectable()
export class DemoDataLoader implements OnApplicationBootstrap {
  private readonly logger = new Logger('DemoData');

  constructor(
    private readonly dataSource: DataSource,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    if (!this.config.demoData) return;
    const demo = new DemoData(this.dataSource);
    const loaded = await underSchemaLock(this.dataSource, async () => {
      if (!(await demo.isEmpty())) return false;
      await demo.load();
      return true;
    });
    if (loaded) this.logger.log('Empty database: demo data loaded.');
  }
}

@Module({ providers: [DemoDataLoader] })
export class DemoDataModule {}
