import { startSystemdHost, type SystemdHost } from '../support/systemd-host';
jest.setTimeout(300_000);
let host: SystemdHost;
beforeAll(async () => { host = await startSystemdHost(); });
afterAll(async () => { await host?.stop(); });
test('probe', async () => {
  const sh = async (c: string) => { const t = Date.now(); const r = await host.exec(c); console.log(`$ ${c.slice(0, 300)}\n${r.stdout}${r.stderr} [${r.code}] ${Date.now() - t} ms`); };
  const unit = `'[Unit]\\nDescription=x\\n[Service]\\nExecStart=/bin/sleep 1000\\n[Install]\\nWantedBy=multi-user.target\\n'`;
  await sh(`printf ${unit} > /etc/systemd/system/c1.service && printf ${unit} > /etc/systemd/system/t@.service && printf ${unit} > /etc/systemd/system/c2.service && systemctl daemon-reload && systemctl enable --now c1.service t@a.service && systemctl mask c3.service`);
  await sh('systemctl show -p UnitFileState c1; rm /etc/systemd/system/multi-user.target.wants/c1.service; systemctl show -p UnitFileState c1');
  await sh("systemctl list-unit-files --no-legend --no-pager -- c1.service t@.service t@a.service c2.service c3.service nope.service 'rh-g\\\\x2dx.service'; echo rc=$?");
  await sh("systemctl list-unit-files --no-legend --no-pager -- nope.service; echo rc=$?");
  await sh("useradd -M rd; su rd -s /bin/sh -c 'systemctl list-unit-files --no-legend --no-pager -- c1.service t@.service'; echo rc=$?");
  const many = Array.from({ length: 200 }, (_, i) => `u${i}.service`).join(' ');
  await sh(`systemctl list-unit-files --no-legend --no-pager -- ${many} c1.service | wc -l`);
  await sh(`systemctl show -p UnitFileState -- ${many} > /dev/null`);
  await sh(`systemctl show -p UnitFileState -- c1.service t@a.service`);
});
