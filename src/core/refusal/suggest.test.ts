import { describe, expect, it } from 'vitest';
import { didYouMean, editDistance, nearest } from './suggest.js';

describe('did you mean', () => {
  it('suggests the allowed key one typo away', () => {
    expect(didYouMean('nulable', ['name', 'type', 'nullable', 'description'])).toBe(
      "did you mean 'nullable'?",
    );
    expect(didYouMean('htm', ['source', 'html'])).toBe("did you mean 'html'?");
  });

  it('suggests a command the user typed the start of', () => {
    expect(
      nearest('distrib', ['json', 'evidence', 'distribute', 'edition', 'scaffold', 'owner', 'contract']),
    ).toBe('distribute');
  });

  it('counts an adjacent swap as one edit', () => {
    expect(editDistance('chekc', 'check')).toBe(1);
    expect(nearest('chekc', ['check', 'new'])).toBe('check');
  });

  it('suggests nothing when no candidate is close', () => {
    expect(nearest('zzzzzz', ['source', 'html'])).toBeUndefined();
    expect(nearest('id', ['kind'])).toBeUndefined();
    expect(didYouMean('x', [])).toBeUndefined();
  });

  it('picks the same candidate whatever the order of the candidates', () => {
    expect(nearest('bar', ['baz', 'bat'])).toBe('bat');
    expect(nearest('bar', ['bat', 'baz'])).toBe('bat');
  });

  describe('dotted names', () => {
    const ids = [
      'retail.dashboard.sales_overview',
      'retail.model.customer_dim',
      'retail.model.order_facts',
      'retail.semantic.customers',
      'retail.semantic.orders',
      'retail.source.customers',
      'retail.source.orders',
    ];

    it('does not let shared leading segments make an unrelated name look close', () => {
      // Compared whole, 'retail.source.' made any other source one typo-sized step away.
      expect(nearest('retail.source.xyz', ids)).toBeUndefined();
      expect(nearest('retail.model.payments', ids)).toBeUndefined();
      expect(nearest('retail.semantic.zzzzzz', ids)).toBeUndefined();
    });

    it('compares the segment that differs, whichever it is', () => {
      expect(nearest('retail.source.custmers', ids)).toBe('retail.source.customers');
      expect(nearest('retail.sourc.orders', ids)).toBe('retail.source.orders');
      expect(nearest('retial.semantic.orders', ids)).toBe('retail.semantic.orders');
      expect(nearest('retail.dashbord.sales_overview', ids)).toBe('retail.dashboard.sales_overview');
      expect(nearest('retail.model.order_fact', ids)).toBe('retail.model.order_facts');
      expect(nearest('customers_sm.custmer', ['customers_sm.customer', 'orders_sm.customer'])).toBe(
        'customers_sm.customer',
      );
    });

    it('judges each differing segment by its own length, so a long shared path does not hide the right one', () => {
      // Compared whole, `us` → `eu` was 2 edits in 19 characters: another
      // region's table came first, ahead of the name the user started.
      const tables = ['warehouse.eu.orders', 'warehouse.us.orders_daily'];
      expect(nearest('warehouse.us.orders', tables)).toBe('warehouse.us.orders_daily');
      expect(nearest('warehouse.us.order', ['warehouse.eu.orders', 'warehouse.us.orders'])).toBe(
        'warehouse.us.orders',
      );
      // Two segments each one typo away still add up to a near name.
      expect(nearest('retial.sourc.orders', ids)).toBe('retail.source.orders');
      // One near segment does not carry a far one.
      expect(nearest('retail.sourc.zzzzzz', ids)).toBeUndefined();
    });

    it('does not offer a deeper name for the start of a segment', () => {
      // The start-of-name rule once reached across the dot: `retail.sour`
      // found `retail.source.orders`, and `ful` found `full.yaml` while
      // `full` found nothing.
      expect(nearest('retail.sour', ids)).toBeUndefined();
      expect(nearest('ful', ['full.yaml'])).toBeUndefined();
      expect(nearest('full', ['full.yaml'])).toBeUndefined();
      expect(nearest('retail.sour.orders', ids)).toBe('retail.source.orders');
    });

    it('does not offer a deeper or shallower name for a missing or extra segment', () => {
      expect(nearest('retail.source', ids)).toBeUndefined();
      expect(nearest('retail.orders', ids)).toBeUndefined();
      expect(nearest('retail.source.orders.daily', ids)).toBeUndefined();
    });

    it('still finds a plain name among dotted ids and names', () => {
      expect(nearest('order_fact', [...ids, 'order_facts', 'customer_dim'])).toBe('order_facts');
      expect(nearest('retail.source.order', ids)).toBe('retail.source.orders');
      expect(didYouMean('retail.source.ordres', ids)).toBe("did you mean 'retail.source.orders'?");
    });
  });
});
