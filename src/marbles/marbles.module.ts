import { Module } from '@nestjs/common';
import { CollectionModule } from '../rest/http/collection.module';
import { MarblesController } from './marbles.controller';
import { MARBLES } from './marbles.resource';
import { MarblesService } from './marbles.service';

@Module({
  imports: [CollectionModule.forFeature(MARBLES)],
  controllers: [MarblesController],
  providers: [MarblesService],
})
export class MarblesModule {}
