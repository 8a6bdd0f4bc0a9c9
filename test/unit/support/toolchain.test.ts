/**
 * CDKTF_HOMELAB_TERRAFORM's check on the binary env.sh chose: terraform-1.15 is a file named terraform in the cache's
 * terraform-1.15.<patch> folder, so a name check alone would pass the machine's 1.11.4 for it (or fail the 1.15 build).
 */
import { isChosen } from '../../support/toolchain';

const CACHE = '/var/cache/cdktf-homelab/terraform';

test('terraform-1.15 is the cached 1.15 build, not the machine terraform nor another version', () => {
  expect(isChosen(`${CACHE}/terraform-1.15.9/bin/terraform`, 'terraform-1.15')).toBe(true);
  expect(isChosen('/usr/local/bin/terraform', 'terraform-1.15')).toBe(false);
  expect(isChosen(`${CACHE}/terraform-1.16.0/bin/terraform`, 'terraform-1.15')).toBe(false);
  expect(isChosen(`${CACHE}/terraform-1.15.9/bin/tofu`, 'terraform-1.15')).toBe(false);
});

test('terraform and tofu are checked by the file name, as before', () => {
  expect(isChosen('/usr/local/bin/terraform', 'terraform')).toBe(true);
  expect(isChosen(`${CACHE}/tofu-1.12.6/bin/tofu`, 'tofu')).toBe(true);
  expect(isChosen('/usr/local/bin/terraform', 'tofu')).toBe(false);
});
