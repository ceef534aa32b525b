import { Column, Unique } from 'typeorm';
import { EntityWith, VersionedRow } from '../database/entity-parts';
import { User } from '../users/user.entity';

/** Free-form numbers, stored exactly as sent, each of a user (deleted with it). */
@EntityWith('phone_numbers', { column: 'user_id', target: () => User, onDelete: 'CASCADE' })
@Unique('UQ_39a8667426c93127ba41ecacbaf', ['number'])
export class PhoneNumber extends VersionedRow {
  @Column({ type: 'varchar', length: 255 })
  number: string;
}
