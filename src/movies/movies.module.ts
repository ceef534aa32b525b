import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { PaginatorModule } from '../rest/http/paginator.module';
import { Genre } from '../genres/genre.entity';
import { User } from '../users/user.entity';
import { Movie } from './movie.entity';
import { MoviesController } from './movies.controller';
import { MOVIES } from './movies.resource';
import { MoviesService } from './movies.service';

@Module({
  imports: [
    PaginatorModule.forFeature(MOVIES.pagination),
    TypeOrmModule.forFeature([Movie, Genre, User]),
  ],
  controllers: [MoviesController],
  providers: [MoviesService],
})
export class MoviesModule {}
