import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { PaginatorModule } from '../rest/http/paginator.module';
import { User } from '../users/user.entity';
import { Marble } from './marble.entity';
import { MarblesController } from './marbles.controller';
import { MARBLES } from './marbles.resource';
import { MarblesService } from './marbles.service';

@Module({
  imports: [
    PaginatorModule.forFeature(MARBLES.pagination),
    TypeOrmModule.forFeature([Marble, User]),
  ],
  controllers: [MarblesController],
  providers: [MarblesService],
})
export class MarblesModule {}
