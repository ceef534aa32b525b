import { Module } from '@nestjs/common';
import { PaginatorModule } from '../rest/pagination/paginator.module';
import { EmailsController } from './emails.controller';
import { EmailsService } from './emails.service';

@Module({
  imports: [PaginatorModule.forFeature({ pageSize: 30 })],
  controllers: [EmailsController],
  providers: [EmailsService],
})
export class EmailsModule {}
