import { Module } from '@nestjs/common';
import { CollectionModule } from '../rest/http/collection.module';
import { MoviesController } from './movies.controller';
import { MOVIES } from './movies.resource';
import { MoviesService } from './movies.service';

@Module({
  imports: [CollectionModule.forFeature(MOVIES)],
  controllers: [MoviesController],
  providers: [MoviesService],
})
export class MoviesModule {}
