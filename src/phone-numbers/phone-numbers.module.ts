import { Module } from '@nestjs/common';
import { CollectionModule } from '../rest/http/collection.module';
import { PhoneNumbersController } from './phone-numbers.controller';
import { PHONE_NUMBERS } from './phone-numbers.resource';
import { PhoneNumbersService } from './phone-numbers.service';

@Module({
  imports: [CollectionModule.forFeature(PHONE_NUMBERS)],
  controllers: [PhoneNumbersController],
  providers: [PhoneNumbersService],
})
export class PhoneNumbersModule {}
