/**
 * The three Terraform blocks a managed object is made of, written directly: the built-in
 * `terraform_data`, the `external` data source and its provider. cdktf's `DataResource` runs
 * `terraform version` for every instance at synth (two per object: 15 s for 100 metric servers,
 * measured), and the external provider's bindings are one more copy of the core library to match.
 */
import type { Construct } from 'constructs';
import {
  type ITerraformDependable,
  TerraformDataSource,
  TerraformProvider,
  TerraformResource,
  TerraformStack,
} from './cdk';

/** A local-exec provisioner, as Terraform JSON spells it. */
export interface LocalExec {
  readonly when?: 'destroy';
  /** The program and its first arguments, run with `command` as the last; `/bin/sh -c` when none. */
  readonly interpreter?: readonly string[];
  readonly command: string;
  /** The variables, or one expression that evaluates to them (`${merge(...)}`). */
  readonly environment: Readonly<Record<string, string>> | string;
}

export interface TerraformDataConfig {
  readonly input: unknown;
  readonly triggersReplace: unknown;
  readonly dependsOn?: ITerraformDependable[];
  readonly localExec?: LocalExec;
  /** Attributes a change of which is not an update (`lifecycle.ignore_changes`). */
  readonly ignoreChanges?: string[];
}

/** `resource "terraform_data"`: needs Terraform 1.4 or newer, and no provider. */
export class TerraformData extends TerraformResource {
  constructor(
    scope: Construct,
    id: string,
    private readonly config: TerraformDataConfig,
  ) {
    super(scope, id, {
      terraformResourceType: 'terraform_data',
      terraformGeneratorMetadata: { providerName: 'terraform' },
      dependsOn: config.dependsOn,
      lifecycle: config.ignoreChanges === undefined ? undefined : { ignoreChanges: config.ignoreChanges },
    });
    // cdktf's provisioner type wants a map for `environment`; an expression is written as is.
    const exec = config.localExec;
    if (exec !== undefined) this.addOverride('provisioner', [{ 'local-exec': { ...exec } }]);
  }

  /** The input as declared (a value, or a template naming Terraform values). */
  get input(): unknown {
    return this.config.input;
  }

  protected synthesizeAttributes(): Record<string, unknown> {
    return { input: this.config.input, triggers_replace: this.config.triggersReplace };
  }
}

/** `data "external"`: runs `program` with `query` on stdin at plan time. */
export class ExternalRead extends TerraformDataSource {
  constructor(
    scope: Construct,
    id: string,
    /** `program` as a list, or one expression that evaluates to it. */
    private readonly config: { readonly program: readonly string[] | string; readonly query: unknown },
  ) {
    super(scope, id, { terraformResourceType: 'external', terraformGeneratorMetadata: EXTERNAL });
    ensureExternalProvider(TerraformStack.of(scope));
  }

  /** `data.external.<name>.result["<key>"]` as an expression. */
  result(key: string): string {
    return `data.external.${this.friendlyUniqueId}.result["${key}"]`;
  }

  protected synthesizeAttributes(): Record<string, unknown> {
    return { program: this.config.program, query: this.config.query };
  }
}

const EXTERNAL = { providerName: 'external', providerVersion: '2.3.5' };

/** The `external` provider block, pinned to the version the tests run. */
class ExternalProvider extends TerraformProvider {
  constructor(scope: Construct, id: string) {
    super(scope, id, {
      terraformResourceType: 'external',
      terraformGeneratorMetadata: EXTERNAL,
      terraformProviderSource: 'hashicorp/external',
    });
  }
}

const PROVIDER_ID = 'homelab-external';

/** Adds the provider block once per stack, unless the user declared their own. */
const ensureExternalProvider = (stack: TerraformStack): void => {
  if (stack.node.tryFindChild(PROVIDER_ID) !== undefined) return;
  const declared = stack.node
    .findAll()
    .some((c) => TerraformProvider.isTerraformProvider(c) && c.terraformResourceType === 'external');
  if (!declared) new ExternalProvider(stack, PROVIDER_ID);
};
