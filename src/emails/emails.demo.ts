import { DemoRows } from '../database/demo-data';

/**
 * 150 e-mails: the first 50 users have two, the rest one. Most users have a primary one; every
 * third user has a billing address, sometimes one owned by another user.
 */
export const EMAILS_DEMO: DemoRows = {
  tables: ['emails'],
  rows({ random, users }) {
    const emails: unknown[][] = [];
    const billing: [number, number][] = [];
    const billed = new Set<number>();
    let emailId = 0;
    for (const { id: userId, login } of users) {
      const count = userId <= 50 ? 2 : 1;
      const primary = userId % 5 === 0 ? -1 : random.int(0, count - 1);
      for (let k = 0; k < count; k++) {
        emailId++;
        const domain = ['example.com', 'example.org', 'mail.example.net'][(userId + k) % 3];
        const address =
          k === 0 ? `${login}@${domain}` : `${login}.${['work', 'home'][userId % 2]}@${domain}`;
        emails.push([emailId, address, k === primary ? 1 : 0, userId]);
      }
      const billingEmail = userId % 9 === 0 ? ((emailId + 17) % 150) + 1 : emailId;
      if (userId % 3 === 0 && !billed.has(billingEmail)) {
        billed.add(billingEmail);
        billing.push([userId, billingEmail]);
      }
    }
    return [
      { table: 'emails', columns: ['id', 'email', 'is_primary', 'user_id'], rows: emails },
      { table: 'users', set: 'email_id', rows: billing },
    ];
  },
};
