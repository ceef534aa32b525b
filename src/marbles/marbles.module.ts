import { Module } from '@nestjs/common';
import { CollectionModule } from '../rest/http/collection.module';
import { User } from '../users/user.entity';
import { Marble } from './marble.entity';
import { MarblesController } from './marbles.controller';
import { MARBLES } from './marbles.resource';
import { MarblesService } from './marbles.service';

@Module({
  imports: [CollectionModule.forFeature(MARBLES, [Marble, User])],
  controllers: [MarblesController],
  providers: [MarblesService],
})
export class MarblesModule {}
