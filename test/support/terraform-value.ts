/**
 * What a handler gets once Terraform knows a variable: the synthesized spec with the value where
 * the variable's token stood, as jsonencode puts it, so a test can hand a handler exactly that.
 */
import { TerraformVariable, type TerraformStack } from 'cdktf';

/** A string variable of `stack`, and `substitute`, which puts `value` for it into a synthesized spec. */
export const stringVariable = (stack: TerraformStack, name: string, value: string) => {
  const variable = new TerraformVariable(stack, name, { type: 'string' });
  const token = variable.stringValue;
  const substitute = <T extends object>(spec: T): T =>
    JSON.parse(JSON.stringify(spec).split(token).join(JSON.stringify(value).slice(1, -1))) as T;
  return { token, substitute };
};
