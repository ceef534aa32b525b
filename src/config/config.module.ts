import { DynamicModule, Global, Module } from '@nestjs/common';
import { AppConfig } from './configuration';

export const APP_CONFIG = Symbol('APP_CONFIG');

/** Holds the validated configuration for injection under `APP_CONFIG`. */
@Global()
@Module({})
export class AppConfigModule {
  static register(config: AppConfig): DynamicModule {
    return {
      module: AppConfigModule,
      providers: [{ provide: APP_CONFIG, useValue: config }],
      exports: [APP_CONFIG],
    };
  }
}
