import { DemoRows } from '../database/demo-data';

/** 100 numbers, one a user, written in six styles (the service stores them as sent). */
export const PHONE_NUMBERS_DEMO: DemoRows = {
  tables: ['phone_numbers'],
  rows() {
    const phones: unknown[][] = [];
    for (let i = 0; i < 100; i++) {
      const [a, b, c] = [
        200 + ((i * 7) % 800),
        100 + ((i * 131) % 900),
        1000 + ((i * 7919) % 9000),
      ];
      const styles = [
        `${a}.${b}.${c}`,
        `${a}-${b}-${c}`,
        `(${a}) ${b}-${c}`,
        `+1 ${a} ${b} ${c}`,
        `${a} ${b} ${c}`,
        `+44 (0)20 ${b} ${c}`,
      ];
      phones.push([i + 1, styles[i % styles.length], (i % 100) + 1]);
    }
    return [{ table: 'phone_numbers', columns: ['id', 'number', 'user_id'], rows: phones }];
  },
};
