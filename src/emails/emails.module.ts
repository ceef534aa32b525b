import { Module } from '@nestjs/common';
import { CollectionModule } from '../rest/http/collection.module';
import { EmailsController } from './emails.controller';
import { EMAILS } from './emails.resource';
import { EmailsService } from './emails.service';

@Module({
  imports: [CollectionModule.forFeature(EMAILS)],
  controllers: [EmailsController],
  providers: [EmailsService],
})
export class EmailsModule {}
