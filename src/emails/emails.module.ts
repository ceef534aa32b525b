import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { PaginatorModule } from '../rest/http/paginator.module';
import { User } from '../users/user.entity';
import { Email } from './email.entity';
import { EmailsController } from './emails.controller';
import { EMAILS } from './emails.resource';
import { EmailsService } from './emails.service';

@Module({
  imports: [PaginatorModule.forFeature(EMAILS.pagination), TypeOrmModule.forFeature([Email, User])],
  controllers: [EmailsController],
  providers: [EmailsService],
})
export class EmailsModule {}
