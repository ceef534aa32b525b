import { DemoRandom, DemoRows, demoCents, demoTimestamp } from '../database/demo-data';

const COLORS = [
  'Amber',
  'Azure',
  'Cobalt',
  'Coral',
  'Crimson',
  'Emerald',
  'Ivory',
  'Jade',
  'Onyx',
  'Opal',
  'Ruby',
  'Saffron',
];
const KINDS = [
  'Aggie',
  'Bumblebee',
  "Cat's Eye",
  'Clearie',
  'Galaxy',
  'Oxblood',
  'Swirl',
  'Tiger Eye',
  'Vortex',
  'Steelie',
];

/** The marble of index `i`: 12 colours × 10 kinds a series, then the series again, numbered. */
function marble(i: number, rnd: DemoRandom): unknown[] {
  const id = i + 1;
  const color = COLORS[i % COLORS.length];
  const kind = KINDS[Math.floor(i / COLORS.length) % KINDS.length];
  const series = Math.floor(i / (COLORS.length * KINDS.length));
  const name = series === 0 ? `${color} ${kind}` : `${color} ${kind} ${series + 1}`;
  const price =
    i % 10 === 9 ? null : i % 8 === 0 ? `${rnd.int(1, 40)}.00` : demoCents(rnd.int(25, 9999));
  const description =
    i % 5 === 4 ? '' : `${kind} in ${color.toLowerCase()} glass; 100% hand-made_${series + 1}.`;
  const created = demoTimestamp(i);
  return [
    id,
    name,
    1 + ((i * 7) % 30),
    price,
    rnd.next() < 0.3 ? 1 : 0,
    created,
    i % 3 === 0 ? created : demoTimestamp(i, 48),
    i % 7 === 6 ? null : (i % 100) + 1,
    description,
    null,
  ];
}

/** 120 marbles by default; `npm run seed -- --marbles N` (and the benchmark) choose another number. */
export const MARBLES_DEMO: DemoRows = {
  tables: ['marbles'],
  sized: {
    option: 'marbles',
    count: 120,
    table: 'marbles',
    columns: [
      'id',
      'name',
      'radius_mm',
      'price',
      'is_discounted',
      'created_at',
      'updated_at',
      'user_id',
      'description',
      'picture',
    ],
    row: marble,
  },
};
