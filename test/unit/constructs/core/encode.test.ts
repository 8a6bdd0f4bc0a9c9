import { Testing, TerraformStack, TerraformVariable } from 'cdktf';
import { escapeTemplate } from '../../../../constructs/core/encode';
import { SshHost } from '../../../../constructs/linux/ssh-host';
import { SystemdUnit } from '../../../../constructs/linux/systemd-unit';
import { entryOf, queryOf } from '../batch-apply';

const HOST_KEY = `SHA256:${'A'.repeat(43)}`;

const stackWithUnit = (
  content: (stack: TerraformStack) => string,
  name: (stack: TerraformStack) => string = () => 'a.service',
) => {
  const stack = new TerraformStack(Testing.app(), 'test');
  const host = new SshHost(stack, 'h', { host: 'a', hostKey: HOST_KEY });
  new SystemdUnit(stack, 'u', { host, name: name(stack), content: content(stack) });
  return JSON.parse(Testing.synth(stack));
};

describe('stack values reaching a handler', () => {
  test('template sequences in a plain value are escaped, so Terraform hands the handler the text as written', () => {
    expect(escapeTemplate('echo ${HOME} %{if} $$ %')).toBe('echo $${HOME} %%{if} $$ %');
    const json = stackWithUnit(() => "[Service]\nExecStart=/bin/sh -c 'echo ${HOME} %{x}'\n");
    expect(entryOf(json, 'h', 'u').text).toContain('echo $${HOME} %%{x}');
    // Packed into the read's query, the text travels as written: base64 holds no template sequence.
    expect(queryOf(json, 'h').u).toContain("echo ${HOME} %{x}'");
  });

  test('a value holding a Terraform reference is encoded by jsonencode, never spliced into JSON text', () => {
    const json = stackWithUnit(
      (stack) => `[Unit]\nDescription=${new TerraformVariable(stack, 'desc', { type: 'string' }).stringValue}\n`,
    );
    // The entry is also the apply's trigger, so a new value of the variable replaces the apply.
    const { text } = entryOf(json, 'h', 'u');
    expect(text).toMatch(/^\{"kind":"systemd-unit","spec":\$\{jsonencode\(\{.*\}\)\}\}$/);
    // Text holding a value ships as pieces, the value apart, for the handler to judge (unit-content.ts).
    expect(text).toContain('"content" = {"pieces" = ["[Unit]\\nDescription=", var.desc, "\\n"]}');
    expect(json.data.external.h_read.query.u).toMatch(/^\{"kind":"systemd-unit","spec":\$\{jsonencode\(/);
  });

  test('an identity field holding a Terraform reference is refused at synth, naming the field', () => {
    expect(() =>
      stackWithUnit(
        () => '[Unit]\n',
        (stack) => new TerraformVariable(stack, 'n', { type: 'string' }).stringValue,
      ),
    ).toThrow(/test\/u: name must be a plain value known at synth, got a Terraform reference/);
  });
});
