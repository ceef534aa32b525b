import { Module } from '@nestjs/common';
import { CollectionModule } from '../rest/http/collection.module';
import { User } from '../users/user.entity';
import { Email } from './email.entity';
import { EmailsController } from './emails.controller';
import { EMAILS } from './emails.resource';
import { EmailsService } from './emails.service';

@Module({
  imports: [CollectionModule.forFeature(EMAILS, [Email, User])],
  controllers: [EmailsController],
  providers: [EmailsService],
})
export class EmailsModule {}
