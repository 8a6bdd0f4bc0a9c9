/**
 * What a props test needs to see a construct refused as a plain-JavaScript app would meet it: the
 * message synth fails with, and props as written (a prop set to undefined left out, as if never
 * typed). One helper, so every kind's props table is tested the same way.
 */
import { Testing, TerraformStack } from 'cdktf';

/** The message declaring `build` in a fresh stack named `test` and synthesizing it fails with. */
export const synthError = (build: (stack: TerraformStack) => void): string => {
  const stack = new TerraformStack(Testing.app(), 'test');
  try {
    build(stack);
    Testing.synth(stack);
  } catch (error) {
    return (error as Error).message;
  }
  throw new Error('synth passed');
};

/** `props` without the entries set to undefined: a required prop left out. */
export const written = (props: Readonly<Record<string, unknown>>): Record<string, unknown> =>
  Object.fromEntries(Object.entries(props).filter(([, value]) => value !== undefined));
