import { DynamicModule, Module } from '@nestjs/common';
import { APP_FILTER, APP_INTERCEPTOR } from '@nestjs/core';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AppConfigModule } from './config/config.module';
import { AppConfig } from './config/configuration';
import { DatabaseModule } from './database/database';
import { ApiDocsModule } from './rest/api-docs';
import { DemoDataModule } from './database/demo-data.module';
import { dataSourceOptions } from './database/data-source-options';
import { EmailsModule } from './emails/emails.module';
import { MarblesModule } from './marbles/marbles.module';
import { MoviesModule } from './movies/movies.module';
import { PhoneNumbersModule } from './phone-numbers/phone-numbers.module';
import { ApiExceptionFilter } from './rest/api-exception.filter';
import { PaginatorModule } from './rest/pagination/paginator.module';
import { RenderInterceptor } from './rest/render.interceptor';

@Module({})
export class AppModule {
  static register(config: AppConfig): DynamicModule {
    return {
      module: AppModule,
      imports: [
        AppConfigModule.register(config),
        TypeOrmModule.forRoot(dataSourceOptions(config.database)),
        DatabaseModule,
        ApiDocsModule,
        PaginatorModule.forRoot(),
        DemoDataModule,
        EmailsModule,
        MarblesModule,
        PhoneNumbersModule,
        MoviesModule,
      ],
      providers: [
        { provide: APP_INTERCEPTOR, useClass: RenderInterceptor },
        { provide: APP_FILTER, useClass: ApiExceptionFilter },
      ],
    };
  }
}
