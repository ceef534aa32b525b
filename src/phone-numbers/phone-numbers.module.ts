import { Module } from '@nestjs/common';
import { PaginatorModule } from '../rest/pagination/paginator.module';
import { PhoneNumbersController } from './phone-numbers.controller';
import { PhoneNumbersService } from './phone-numbers.service';

@Module({
  imports: [PaginatorModule.forFeature({ pageSize: 30 })],
  controllers: [PhoneNumbersController],
  providers: [PhoneNumbersService],
})
export class PhoneNumbersModule {}
