// Runs a generated stack file with stub constructs, so a test compares what it declares with what was live.
import * as ts from 'typescript';

/**
 * Runs the generated file with stub constructs, returning each construct's class, id and props; a
 * TypeScript file (`ts`) is transpiled first, a JavaScript one runs as written, as `node` would run it.
 */
export const run = (
  text: string,
  language: 'ts' | 'js' = 'ts',
): Array<{ construct: string; id: string; props: Record<string, unknown> }> => {
  const made: Array<{ construct: string; id: string; props: Record<string, unknown> }> = [];
  const stub = (construct: string) =>
    class {
      constructor(_scope: unknown, id: string, props: Record<string, unknown>) {
        made.push({ construct, id, props });
      }
    };
  const modules: Record<string, unknown> = {
    cdktf: {
      App: class {
        synth() {}
      },
      TerraformStack: class {},
    },
    'cdktf-homelab': new Proxy({}, { get: (_, name) => stub(String(name)) }),
  };
  const js =
    language === 'js'
      ? text
      : ts.transpileModule(text, { compilerOptions: { module: ts.ModuleKind.CommonJS } }).outputText;
  // Node's CommonJS wrapper binds these five (nodejs.org/api/modules.html, The module wrapper): a file declaring
  // one of them at its top level does not run, so the stub binds the same.
  const wrapper = new Function('exports', 'require', 'module', '__filename', '__dirname', js);
  wrapper({}, (name: string) => modules[name], { exports: {} }, '/stack/main.js', '/stack');
  return made;
};
