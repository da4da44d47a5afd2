import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test';
import { sql } from 'drizzle-orm';
import { waitFor } from '../support/wait';
import { login, screenshot, seriousA11yViolations, startSuite, type Suite } from './support';

setDefaultTimeout(120_000);

/**
 * Administration in the built app (issue 19): an administrator creates a user, the invitation arrives at the
 * loopback SMTP server and the new user chooses a password and signs in; a department change resets the user's
 * unit access; support opens a customer's account read-only and the customer's audit log shows it.
 * The server runs no background workers here: the test hands queued mails and outbox events on itself.
 */
let suite: Suite;

beforeAll(async () => {
  suite = await startSuite();
}, 120_000);

afterAll(async () => {
  await suite?.close();
});

/** Opens the login page and signs in (the machine may be busy: the first paint gets time). */
async function signIn(page: Awaited<ReturnType<Suite['newPage']>>, email: string, password: string) {
  await page.goto('/');
  await page.getByRole('heading', { name: 'Logga in' }).waitFor({ timeout: 60_000 });
  await login(page, email, password);
  await page.waitForURL('**/user/realtime-tracking', { timeout: 60_000 });
}

const settle = async () => {
  await suite.server.platform.queue.drain();
  await suite.server.platform.outbox.drain();
};

describe('user accounts', () => {
  test('create a user, accept the invitation from the e-mail, sign in as that user', async () => {
    const admin = await suite.server.createAccount();
    const page = await suite.newPage();
    await signIn(page, admin.email, admin.password);
    await page.getByRole('link', { name: 'Användarkonton' }).click();
    await page.waitForURL('**/administration/user-accounts');
    await page.getByRole('heading', { name: 'Användarkonton', level: 1 }).waitFor();
    await page.getByTestId('user-new').click();
    await page.getByTestId('user-first-name').fill('Nora');
    await page.getByTestId('user-last-name').fill('Nyberg');
    await page.getByTestId('user-email').fill('Nora.Nyberg@Example.com');
    await page.getByTestId('user-language').selectOption('en');
    await page.getByTestId('user-save').click();
    await page.getByRole('alertdialog').or(page.getByRole('dialog', { name: 'Inbjudan skickad' })).waitFor();
    await page.getByRole('button', { name: 'OK' }).click();
    await page.getByText('nora.nyberg@example.com').waitFor();
    await expect(seriousA11yViolations(page)).resolves.toEqual([]);
    await screenshot(page, 'administration-user-accounts');

    await settle();
    const mail = await suite.server.smtp.waitFor('nora.nyberg@example.com');
    expect(mail.subject).toContain('account is ready');
    const link = mail.text.match(/https?:\/\/\S+accept-invitation\?_c=[\w-]+/)?.[0];
    expect(link).toBeDefined();

    const invited = await suite.newPage();
    await invited.goto(link!);
    await invited.getByTestId('invitation-password').fill('Welcome-2026!');
    await invited.getByTestId('invitation-confirm').fill('Welcome-2026!');
    await invited.getByTestId('invitation-submit').click();
    await invited.waitForURL((url) => url.pathname === '/');
    await login(invited, 'nora.nyberg@example.com', 'Welcome-2026!');
    await invited.waitForURL('**/user/realtime-tracking');
    await expect(invited.getByTestId('user-name').textContent()).resolves.toBe('Nora Nyberg');
    // An ordinary user has no user administration.
    await expect(invited.getByRole('link', { name: 'Användarkonton' }).count()).resolves.toBe(0);
  });

  test("changing a user's department resets the units they were given", async () => {
    const admin = await suite.server.createAccount();
    const db = suite.server.database;
    const [department] = await db.rows<{ id: number }>(sql`insert into departments (account_id, name) values (${admin.accountId}, 'Service') returning id`);
    await suite.server.services.units.addStock({ imeis: ['356307042471001'], model: 'FMB920', protocol: 'teltonika', subsiteID: null }, null);
    const [unit] = await db.rows<{ id: number }>(sql`insert into units (account_id, imei, name) values (${admin.accountId}, '356307042471001', 'Servicebil') returning id`);
    const [user] = await db.rows<{ id: number }>(sql`
      insert into users (account_id, email, password_hash, first_name, last_name, role)
      values (${admin.accountId}, ${`driver-${admin.accountId}@example.com`}, 'x', 'Dan', 'Driver', 'user') returning id`);
    await suite.server.grantUnits(user!.id, [unit!.id]);
    expect(department).toBeDefined();

    const page = await suite.newPage();
    await signIn(page, admin.email, admin.password);
    await page.goto('/administration/user-accounts');
    await expect(page.getByTestId(`user-units-${user!.id}`).textContent()).resolves.toBe('1');
    await page.getByTestId(`user-edit-${user!.id}`).click();
    await page.getByTestId('user-department').selectOption({ label: 'Service' });
    await page.getByTestId('department-reset-note').waitFor();
    await page.getByTestId('user-save').click();
    await page.getByTestId('user-form').waitFor({ state: 'detached' });
    await expect(page.getByTestId(`user-department-${user!.id}`).textContent()).resolves.toBe('Service');
    await settle();
    await page.reload();
    await expect(page.getByTestId(`user-units-${user!.id}`).textContent()).resolves.toBe('0');
    expect(await db.rows(sql`select unit_id from unit_access where user_id = ${user!.id}`)).toEqual([]);
  });
});

describe('bulk tasks on users', () => {
  test('a bulk job with one failing row: progress from the server, the others done, the failure reported; then a department for both', async () => {
    const admin = await suite.server.createAccount();
    const db = suite.server.database;
    await db.rows(sql`insert into departments (account_id, name) values (${admin.accountId}, 'Fält')`);
    await suite.server.services.units.addStock({ imeis: ['356307042471002'], model: 'FMB920', protocol: 'teltonika', subsiteID: null }, null);
    const [unit] = await db.rows<{ id: number }>(sql`insert into units (account_id, imei, name) values (${admin.accountId}, '356307042471002', 'Poolbil') returning id`);
    const person = async (first: string) => {
      const [row] = await db.rows<{ id: number }>(sql`
        insert into users (account_id, email, password_hash, first_name, last_name, role)
        values (${admin.accountId}, ${`${first.toLowerCase()}-${admin.accountId}@example.com`}, 'x', ${first}, 'Bulk', 'user') returning id`);
      return row!.id;
    };
    const anna = await person('Anna');
    const bo = await person('Bo');
    await suite.server.grantUnits(anna, [unit!.id]);
    await suite.server.grantUnits(bo, [unit!.id]);
    // Bo has locked the private car: the locker keeps access, so taking it from Bo fails (§6).
    await db.rows(sql`update units set locked_by = ${bo}, car_usage = 'private' where id = ${unit!.id}`);

    const page = await suite.newPage();
    await signIn(page, admin.email, admin.password);
    await page.goto('/administration/user-accounts');
    for (const name of ['Anna Bulk', 'Bo Bulk']) {
      const box = page.getByRole('checkbox', { name: `Välj ${name}` });
      await box.evaluate((element) => (element as HTMLInputElement).click());
    }
    const panel = page.getByTestId('user-bulk-panel');
    await panel.getByRole('heading', { name: 'Massåtgärd för 2 användare' }).waitFor();
    await panel.getByTestId('user-bulk-task').selectOption('unitAccess');
    await panel.getByTestId('user-bulk-units-open').click();
    await page.getByRole('checkbox', { name: 'Poolbil' }).check();
    await page.keyboard.press('Escape');
    await page.getByTestId('unit-picker-list').waitFor({ state: 'detached' });
    await panel.getByLabel('Åtkomst', { exact: true }).selectOption('remove');
    await panel.getByRole('button', { name: 'Kör' }).click();
    // The job waits in the queue until a worker takes it (this suite runs none): the bar shows none done yet.
    const jobs = (count: number) => waitFor(`${count} bulk jobs`, async () => (await db.rows(sql`select id from bulk_jobs where account_id = ${admin.accountId}`)).length === count);
    await jobs(1);
    await panel.getByText('0 av 2 klara').waitFor();
    await settle();
    await panel.getByTestId('user-bulk-summary').waitFor();
    expect(await panel.getByTestId('user-bulk-summary').textContent()).toBe('1 användare kunde inte ändras.');
    expect(await panel.getByTestId('user-bulk-progress').getAttribute('value')).toBe('100');
    const rows = await panel.getByTestId('user-bulk-results').locator('li').allTextContents();
    expect(rows[0]).toBe('Anna Bulk: Klart');
    expect(rows[1]!.startsWith('Bo Bulk: ')).toBe(true);
    expect(rows[1]).not.toBe('Bo Bulk: Klart');
    await screenshot(page, 'administration-user-bulk-failure');
    expect(await db.rows(sql`select user_id from unit_access where unit_id = ${unit!.id} order by user_id`)).toEqual([{ user_id: bo }]);

    await panel.getByTestId('user-bulk-task').selectOption('department');
    await panel.getByTestId('user-bulk-department').selectOption({ label: 'Fält' });
    await panel.getByRole('button', { name: 'Kör' }).click();
    await jobs(2);
    await settle();
    await panel.getByText('Klart för alla användare.').waitFor();
    await expect(page.getByTestId(`user-department-${anna}`).textContent()).resolves.toBe('Fält');
    const stored = await db.rows<{ department: string }>(sql`select d.name as department from users u join departments d on d.id = u.department_id where u.id in (${anna}, ${bo})`);
    expect(stored).toEqual([{ department: 'Fält' }, { department: 'Fält' }]);
  });
});

describe('support', () => {
  test("support opens a customer's account read-only; the customer's audit log shows it", async () => {
    const support = await suite.server.createAccount({ role: 'support' });
    const customer = await suite.server.createAccount();
    const [row] = await suite.server.database.rows<{ company_name: string }>(sql`select company_name from accounts where id = ${customer.accountId}`);
    const page = await suite.newPage();
    await signIn(page, support.email, support.password);
    await page.getByRole('link', { name: 'Kundkonton' }).click();
    await page.getByTestId('customer-search').fill(String(customer.accountId));
    await page.getByTestId(`customer-open-${customer.accountId}`).click();
    await page.waitForURL('**/administration/user-accounts');
    await expect(page.getByTestId('acting-banner').textContent()).resolves.toContain(row!.company_name);
    await page.getByText(customer.email).waitFor();
    // Read-only: no creating, editing or deleting.
    await expect(page.getByTestId('user-new').count()).resolves.toBe(0);
    await expect(page.getByTestId(`user-edit-${customer.userId}`).count()).resolves.toBe(0);
    await screenshot(page, 'administration-support-acting');

    await settle();
    const owner = await suite.newPage();
    await signIn(owner, customer.email, customer.password);
    await owner.getByRole('link', { name: 'Händelselogg' }).click();
    await owner.waitForURL('**/administration/audit-log');
    const entry = owner.getByTestId('audit-row-support.account_opened');
    await entry.waitFor();
    await expect(entry.textContent()).resolves.toContain('Konto öppnat av support');
    await expect(entry.textContent()).resolves.toContain('(support)');
    await expect(seriousA11yViolations(owner)).resolves.toEqual([]);
  });
});
