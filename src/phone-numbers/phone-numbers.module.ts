import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { PaginatorModule } from '../rest/http/paginator.module';
import { User } from '../users/user.entity';
import { PhoneNumber } from './phone-number.entity';
import { PhoneNumbersController } from './phone-numbers.controller';
import { PHONE_NUMBERS } from './phone-numbers.resource';
import { PhoneNumbersService } from './phone-numbers.service';

@Module({
  imports: [
    PaginatorModule.forFeature(PHONE_NUMBERS.pagination),
    TypeOrmModule.forFeature([PhoneNumber, User]),
  ],
  controllers: [PhoneNumbersController],
  providers: [PhoneNumbersService],
})
export class PhoneNumbersModule {}
