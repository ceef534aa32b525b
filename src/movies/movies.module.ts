import { Module } from '@nestjs/common';
import { CollectionModule } from '../rest/http/collection.module';
import { Genre } from '../genres/genre.entity';
import { User } from '../users/user.entity';
import { GenreMovie, Movie, MovieUser } from './movie.entity';
import { MoviesController } from './movies.controller';
import { MOVIES } from './movies.resource';
import { MoviesService } from './movies.service';

@Module({
  imports: [CollectionModule.forFeature(MOVIES, [Movie, GenreMovie, MovieUser, Genre, User])],
  controllers: [MoviesController],
  providers: [MoviesService],
})
export class MoviesModule {}
