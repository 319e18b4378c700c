/* SPDX-License-Identifier: ISC */
/*
 * The PKCS#11 functions this module does not offer: the daemon's keys sign and nothing else
 * (no encryption, no key creation, no token management). Each answers CKR_FUNCTION_NOT_SUPPORTED,
 * or CKR_CRYPTOKI_NOT_INITIALIZED before C_Initialize.
 */
#include "p11-functions.h"

static CK_RV unsupported(void)
{
	return !p11_initialized() ? CKR_CRYPTOKI_NOT_INITIALIZED : CKR_FUNCTION_NOT_SUPPORTED;
}

CK_RV p11_unsupported_InitToken(CK_SLOT_ID slot_id, unsigned char *pin, unsigned long pin_len,
	unsigned char *label)
{
	(void)slot_id; (void)pin; (void)pin_len; (void)label; return unsupported();
}

CK_RV p11_unsupported_InitPIN(CK_SESSION_HANDLE session, unsigned char *pin, unsigned long
	pin_len)
{
	(void)session; (void)pin; (void)pin_len; return unsupported();
}

CK_RV p11_unsupported_SetPIN(CK_SESSION_HANDLE session, unsigned char *old_pin, unsigned long
	old_len, unsigned char *new_pin, unsigned long new_len)
{
	(void)session; (void)old_pin; (void)old_len; (void)new_pin; (void)new_len; return
	unsupported();
}

CK_RV p11_unsupported_GetOperationState(CK_SESSION_HANDLE session, unsigned char
	*operation_state, unsigned long *operation_state_len)
{
	(void)session; (void)operation_state; (void)operation_state_len; return unsupported();
}

CK_RV p11_unsupported_SetOperationState(CK_SESSION_HANDLE session, unsigned char
	*operation_state, unsigned long operation_state_len, CK_OBJECT_HANDLE encryption_key,
	CK_OBJECT_HANDLE authentiation_key)
{
	(void)session; (void)operation_state; (void)operation_state_len; (void)encryption_key;
	(void)authentiation_key; return unsupported();
}

CK_RV p11_unsupported_CreateObject(CK_SESSION_HANDLE session, CK_ATTRIBUTE_PTR templ,
	unsigned long count, CK_OBJECT_HANDLE_PTR object)
{
	(void)session; (void)templ; (void)count; (void)object; return unsupported();
}

CK_RV p11_unsupported_CopyObject(CK_SESSION_HANDLE session, CK_OBJECT_HANDLE object,
	CK_ATTRIBUTE_PTR templ, unsigned long count, CK_OBJECT_HANDLE_PTR new_object)
{
	(void)session; (void)object; (void)templ; (void)count; (void)new_object; return
	unsupported();
}

CK_RV p11_unsupported_DestroyObject(CK_SESSION_HANDLE session, CK_OBJECT_HANDLE object)
{
	(void)session; (void)object; return unsupported();
}

CK_RV p11_unsupported_GetObjectSize(CK_SESSION_HANDLE session, CK_OBJECT_HANDLE object,
	unsigned long *size)
{
	(void)session; (void)object; (void)size; return unsupported();
}

CK_RV p11_unsupported_SetAttributeValue(CK_SESSION_HANDLE session, CK_OBJECT_HANDLE object,
	CK_ATTRIBUTE_PTR templ, unsigned long count)
{
	(void)session; (void)object; (void)templ; (void)count; return unsupported();
}

CK_RV p11_unsupported_EncryptInit(CK_SESSION_HANDLE session, CK_MECHANISM_PTR mechanism,
	CK_OBJECT_HANDLE key)
{
	(void)session; (void)mechanism; (void)key; return unsupported();
}

CK_RV p11_unsupported_Encrypt(CK_SESSION_HANDLE session, unsigned char *data, unsigned long
	data_len, unsigned char *encrypted_data, unsigned long *encrypted_data_len)
{
	(void)session; (void)data; (void)data_len; (void)encrypted_data; (void)encrypted_data_len;
	return unsupported();
}

CK_RV p11_unsupported_EncryptUpdate(CK_SESSION_HANDLE session, unsigned char *part, unsigned long
	part_len, unsigned char *encrypted_part, unsigned long *encrypted_part_len)
{
	(void)session; (void)part; (void)part_len; (void)encrypted_part; (void)encrypted_part_len;
	return unsupported();
}

CK_RV p11_unsupported_EncryptFinal(CK_SESSION_HANDLE session, unsigned char *last_encrypted_part,
	unsigned long *last_encrypted_part_len)
{
	(void)session; (void)last_encrypted_part; (void)last_encrypted_part_len; return
	unsupported();
}

CK_RV p11_unsupported_DecryptInit(CK_SESSION_HANDLE session, CK_MECHANISM_PTR mechanism,
	CK_OBJECT_HANDLE key)
{
	(void)session; (void)mechanism; (void)key; return unsupported();
}

CK_RV p11_unsupported_Decrypt(CK_SESSION_HANDLE session, unsigned char *encrypted_data, unsigned
	long encrypted_data_len, unsigned char *data, unsigned long *data_len)
{
	(void)session; (void)encrypted_data; (void)encrypted_data_len; (void)data; (void)data_len;
	return unsupported();
}

CK_RV p11_unsupported_DecryptUpdate(CK_SESSION_HANDLE session, unsigned char *encrypted_part,
	unsigned long encrypted_part_len, unsigned char *part, unsigned long *part_len)
{
	(void)session; (void)encrypted_part; (void)encrypted_part_len; (void)part; (void)part_len;
	return unsupported();
}

CK_RV p11_unsupported_DecryptFinal(CK_SESSION_HANDLE session, unsigned char *last_part, unsigned
	long *last_part_len)
{
	(void)session; (void)last_part; (void)last_part_len; return unsupported();
}

CK_RV p11_unsupported_DigestInit(CK_SESSION_HANDLE session, CK_MECHANISM_PTR mechanism)
{
	(void)session; (void)mechanism; return unsupported();
}

CK_RV p11_unsupported_Digest(CK_SESSION_HANDLE session, unsigned char *data, unsigned long
	data_len, unsigned char *digest, unsigned long *digest_len)
{
	(void)session; (void)data; (void)data_len; (void)digest; (void)digest_len; return
	unsupported();
}

CK_RV p11_unsupported_DigestUpdate(CK_SESSION_HANDLE session, unsigned char *part, unsigned long
	part_len)
{
	(void)session; (void)part; (void)part_len; return unsupported();
}

CK_RV p11_unsupported_DigestKey(CK_SESSION_HANDLE session, CK_OBJECT_HANDLE key)
{
	(void)session; (void)key; return unsupported();
}

CK_RV p11_unsupported_DigestFinal(CK_SESSION_HANDLE session, unsigned char *digest, unsigned long
	*digest_len)
{
	(void)session; (void)digest; (void)digest_len; return unsupported();
}

CK_RV p11_unsupported_SignRecoverInit(CK_SESSION_HANDLE session, CK_MECHANISM_PTR mechanism,
	CK_OBJECT_HANDLE key)
{
	(void)session; (void)mechanism; (void)key; return unsupported();
}

CK_RV p11_unsupported_SignRecover(CK_SESSION_HANDLE session, unsigned char *data, unsigned long
	data_len, unsigned char *signature, unsigned long *signature_len)
{
	(void)session; (void)data; (void)data_len; (void)signature; (void)signature_len; return
	unsupported();
}

CK_RV p11_unsupported_VerifyInit(CK_SESSION_HANDLE session, CK_MECHANISM_PTR mechanism,
	CK_OBJECT_HANDLE key)
{
	(void)session; (void)mechanism; (void)key; return unsupported();
}

CK_RV p11_unsupported_Verify(CK_SESSION_HANDLE session, unsigned char *data, unsigned long
	data_len, unsigned char *signature, unsigned long signature_len)
{
	(void)session; (void)data; (void)data_len; (void)signature; (void)signature_len; return
	unsupported();
}

CK_RV p11_unsupported_VerifyUpdate(CK_SESSION_HANDLE session, unsigned char *part, unsigned long
	part_len)
{
	(void)session; (void)part; (void)part_len; return unsupported();
}

CK_RV p11_unsupported_VerifyFinal(CK_SESSION_HANDLE session, unsigned char *signature, unsigned
	long signature_len)
{
	(void)session; (void)signature; (void)signature_len; return unsupported();
}

CK_RV p11_unsupported_VerifyRecoverInit(CK_SESSION_HANDLE session, CK_MECHANISM_PTR
	mechanism, CK_OBJECT_HANDLE key)
{
	(void)session; (void)mechanism; (void)key; return unsupported();
}

CK_RV p11_unsupported_VerifyRecover(CK_SESSION_HANDLE session, unsigned char *signature, unsigned
	long signature_len, unsigned char *data, unsigned long *data_len)
{
	(void)session; (void)signature; (void)signature_len; (void)data; (void)data_len; return
	unsupported();
}

CK_RV p11_unsupported_DigestEncryptUpdate(CK_SESSION_HANDLE session, unsigned char *part,
	unsigned long part_len, unsigned char *encrypted_part, unsigned long *encrypted_part_len)
{
	(void)session; (void)part; (void)part_len; (void)encrypted_part; (void)encrypted_part_len;
	return unsupported();
}

CK_RV p11_unsupported_DecryptDigestUpdate(CK_SESSION_HANDLE session, unsigned char
	*encrypted_part, unsigned long encrypted_part_len, unsigned char *part, unsigned long *part_len)
{
	(void)session; (void)encrypted_part; (void)encrypted_part_len; (void)part; (void)part_len;
	return unsupported();
}

CK_RV p11_unsupported_SignEncryptUpdate(CK_SESSION_HANDLE session, unsigned char *part, unsigned
	long part_len, unsigned char *encrypted_part, unsigned long *encrypted_part_len)
{
	(void)session; (void)part; (void)part_len; (void)encrypted_part; (void)encrypted_part_len;
	return unsupported();
}

CK_RV p11_unsupported_DecryptVerifyUpdate(CK_SESSION_HANDLE session, unsigned char
	*encrypted_part, unsigned long encrypted_part_len, unsigned char *part, unsigned long *part_len)
{
	(void)session; (void)encrypted_part; (void)encrypted_part_len; (void)part; (void)part_len;
	return unsupported();
}

CK_RV p11_unsupported_GenerateKey(CK_SESSION_HANDLE session, CK_MECHANISM_PTR mechanism,
	CK_ATTRIBUTE_PTR templ, unsigned long count, CK_OBJECT_HANDLE_PTR key)
{
	(void)session; (void)mechanism; (void)templ; (void)count; (void)key; return unsupported();
}

CK_RV p11_unsupported_GenerateKeyPair(CK_SESSION_HANDLE session, CK_MECHANISM_PTR mechanism,
	CK_ATTRIBUTE_PTR public_key_template, unsigned long public_key_attribute_count,
	CK_ATTRIBUTE_PTR private_key_template, unsigned long private_key_attribute_count, CK_OBJECT_HANDLE
	*public_key, CK_OBJECT_HANDLE_PTR private_key)
{
	(void)session; (void)mechanism; (void)public_key_template;
	(void)public_key_attribute_count; (void)private_key_template;
	(void)private_key_attribute_count; (void)public_key; (void)private_key; return
	unsupported();
}

CK_RV p11_unsupported_WrapKey(CK_SESSION_HANDLE session, CK_MECHANISM_PTR mechanism,
	CK_OBJECT_HANDLE wrapping_key, CK_OBJECT_HANDLE key, unsigned char *wrapped_key, unsigned long
	*wrapped_key_len)
{
	(void)session; (void)mechanism; (void)wrapping_key; (void)key; (void)wrapped_key;
	(void)wrapped_key_len; return unsupported();
}

CK_RV p11_unsupported_UnwrapKey(CK_SESSION_HANDLE session, CK_MECHANISM_PTR mechanism,
	CK_OBJECT_HANDLE unwrapping_key, unsigned char *wrapped_key, unsigned long wrapped_key_len,
	CK_ATTRIBUTE_PTR templ, unsigned long attribute_count, CK_OBJECT_HANDLE_PTR key)
{
	(void)session; (void)mechanism; (void)unwrapping_key; (void)wrapped_key;
	(void)wrapped_key_len; (void)templ; (void)attribute_count; (void)key; return unsupported();
}

CK_RV p11_unsupported_DeriveKey(CK_SESSION_HANDLE session, CK_MECHANISM_PTR mechanism,
	CK_OBJECT_HANDLE base_key, CK_ATTRIBUTE_PTR templ, unsigned long attribute_count,
	CK_OBJECT_HANDLE_PTR key)
{
	(void)session; (void)mechanism; (void)base_key; (void)templ; (void)attribute_count;
	(void)key; return unsupported();
}

CK_RV p11_unsupported_WaitForSlotEvent(CK_FLAGS flags, CK_SLOT_ID_PTR slot, void *reserved)
{
	(void)flags; (void)slot; (void)reserved; return unsupported();
}

/* PKCS#11 2.40 section 5.17: legacy functions; a module without parallel functions answers
 * CKR_FUNCTION_NOT_PARALLEL. */
CK_RV p11_C_GetFunctionStatus(CK_SESSION_HANDLE h)
{
	(void)h;
	return !p11_initialized() ? CKR_CRYPTOKI_NOT_INITIALIZED : CKR_FUNCTION_NOT_PARALLEL;
}

CK_RV p11_C_CancelFunction(CK_SESSION_HANDLE h)
{
	(void)h;
	return !p11_initialized() ? CKR_CRYPTOKI_NOT_INITIALIZED : CKR_FUNCTION_NOT_PARALLEL;
}
