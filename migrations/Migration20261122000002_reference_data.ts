import { Migration } from '@mikro-orm/migrations';

/** Seeded reference lists (SPEC 4.4). The UUIDs of networks are stable: merchants store them. */
export class Migration20261122000002_reference_data extends Migration {
  override name = 'Migration20261122000002_reference_data';

  override up(): void {
    this.addSql(`insert into currencies (code, name, minor_units) values
      ('GHS','Ghanaian cedi',2), ('NGN','Nigerian naira',2), ('KES','Kenyan shilling',2),
      ('UGX','Ugandan shilling',0), ('TZS','Tanzanian shilling',2), ('RWF','Rwandan franc',0),
      ('XOF','West African CFA franc',0), ('ZAR','South African rand',2), ('USD','US dollar',2)`);
    this.addSql(`insert into countries (code, name, currency) values
      ('GH','Ghana','GHS'), ('NG','Nigeria','NGN'), ('KE','Kenya','KES'), ('UG','Uganda','UGX'),
      ('TZ','Tanzania','TZS'), ('RW','Rwanda','RWF'), ('SN','Senegal','XOF'), ('CI','Côte d''Ivoire','XOF'),
      ('ZA','South Africa','ZAR')`);
    this.addSql(`insert into momo_networks (id, code, name, country, currency) values
      ('3f9c2b1e-8a4d-4c6e-9b7a-1d2e3f4a5b01','mtn-gh','MTN Mobile Money','GH','GHS'),
      ('3f9c2b1e-8a4d-4c6e-9b7a-1d2e3f4a5b02','telecel-gh','Telecel Cash','GH','GHS'),
      ('3f9c2b1e-8a4d-4c6e-9b7a-1d2e3f4a5b03','at-gh','AT Money','GH','GHS'),
      ('3f9c2b1e-8a4d-4c6e-9b7a-1d2e3f4a5b04','mpesa-ke','M-Pesa','KE','KES'),
      ('3f9c2b1e-8a4d-4c6e-9b7a-1d2e3f4a5b05','airtel-ke','Airtel Money','KE','KES'),
      ('3f9c2b1e-8a4d-4c6e-9b7a-1d2e3f4a5b06','mtn-ug','MTN MoMo','UG','UGX'),
      ('3f9c2b1e-8a4d-4c6e-9b7a-1d2e3f4a5b07','airtel-ug','Airtel Money','UG','UGX'),
      ('3f9c2b1e-8a4d-4c6e-9b7a-1d2e3f4a5b08','mpesa-tz','Vodacom M-Pesa','TZ','TZS'),
      ('3f9c2b1e-8a4d-4c6e-9b7a-1d2e3f4a5b09','mtn-rw','MTN MoMo','RW','RWF'),
      ('3f9c2b1e-8a4d-4c6e-9b7a-1d2e3f4a5b10','orange-sn','Orange Money','SN','XOF'),
      ('3f9c2b1e-8a4d-4c6e-9b7a-1d2e3f4a5b11','wave-sn','Wave','SN','XOF'),
      ('3f9c2b1e-8a4d-4c6e-9b7a-1d2e3f4a5b12','mtn-ng','MoMo PSB','NG','NGN')`);
    this.addSql(`insert into banks (code, name, country, currency) values
      ('GCB','GCB Bank','GH','GHS'), ('ECOGH','Ecobank Ghana','GH','GHS'), ('STANBIC-GH','Stanbic Bank Ghana','GH','GHS'),
      ('ACCESS-NG','Access Bank','NG','NGN'), ('GTB','Guaranty Trust Bank','NG','NGN'), ('ZENITH','Zenith Bank','NG','NGN'),
      ('KCB','KCB Bank','KE','KES'), ('EQUITY','Equity Bank','KE','KES'), ('STANBIC-UG','Stanbic Bank Uganda','UG','UGX'),
      ('CRDB','CRDB Bank','TZ','TZS'), ('BK','Bank of Kigali','RW','RWF'), ('SGBS','Société Générale Sénégal','SN','XOF'),
      ('FNB','First National Bank','ZA','ZAR')`);
  }
}
