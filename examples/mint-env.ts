/**
 * HOMELAB_EXAMPLE_MINT as a ProxmoxCluster `mint`, shared by the PVE examples so the metrics and network stacks
 * cannot come to read the variable two ways (one minting for a user the other never names).
 */

/** The users an example mints a token for per run. */
export interface ExampleMint {
  readonly readUser: string;
  readonly provisionUser: string;
}

/** `readUser,provisionUser` as `mint`; unset: no minting. */
export const mintOf = (users: string | undefined): ExampleMint | undefined => {
  const [readUser, provisionUser] = (users ?? '').split(',');
  return readUser && provisionUser ? { readUser, provisionUser } : undefined;
};
