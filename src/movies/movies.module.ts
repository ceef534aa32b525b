import { Module } from '@nestjs/common';
import { PaginatorModule } from '../rest/pagination/paginator.module';
import { MoviesController } from './movies.controller';
import { MoviesService } from './movies.service';

@Module({
  // The interface document: movies are a bare list, pagination disabled.
  imports: [PaginatorModule.forFeature(null)],
  controllers: [MoviesController],
  providers: [MoviesService],
})
export class MoviesModule {}
