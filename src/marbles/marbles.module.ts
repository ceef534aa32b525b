import { Module } from '@nestjs/common';
import { PaginatorModule } from '../rest/pagination/paginator.module';
import { MarblesController } from './marbles.controller';
import { MarblesService } from './marbles.service';

@Module({
  imports: [PaginatorModule.forFeature({ pageSize: 30 })],
  controllers: [MarblesController],
  providers: [MarblesService],
})
export class MarblesModule {}
